// Command pause is the sandbox ("pause") container of the test cluster that
// scripts/k8s-cluster.sh starts: the kubelet's runtime needs one image that
// holds a pod's namespaces and does nothing, and registry.k8s.io's is out of
// reach of a machine with only the package registries. It waits for SIGTERM or
// SIGINT and exits 0, as the upstream pause does.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
}
