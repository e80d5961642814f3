package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The k8s command is run in-process through newK8s: what it renders is
// tested in internal/k8s; these tests cover the flags, the study loading and
// where the output goes.

const k8sStudy = `[study]
name = "k8s cmd"

[[target]]
name = "pg"
url = "postgres://bench@pg.bench.svc/bench"

[[workload]]
name = "kv"
kind = "kv"
clients = [4]
`

func runK8s(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newK8s()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func k8sStudyFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "study.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestK8sRenderCommandWritesManifests(t *testing.T) {
	path := k8sStudyFile(t, k8sStudy)
	out, err := runK8s(t, "render", path, "--generators", "3", "--image", "img:1",
		"--results", "postgres://fb@stats/fb", "--secret", "pw", "--namespace", "ns", "--cpu", "4", "--memory", "8Gi")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"kind: ConfigMap", "name: k8s-cmd-study", "name: k8s-cmd-generators", "name: k8s-cmd-coordinator",
		"namespace: ns", "completionMode: Indexed", "parallelism: 3", `cpu: "4"`, `memory: "8Gi"`,
		"name: pw", "image: \"img:1\"", "\n    name = \"k8s cmd\"\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	file := filepath.Join(t.TempDir(), "out.yaml")
	if _, err := runK8s(t, "render", path, "--generators", "3", "--image", "img:1",
		"--results", "postgres://fb@stats/fb", "--secret", "pw", "--namespace", "ns", "--cpu", "4", "--memory", "8Gi", "-o", file); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != out {
		t.Errorf("-o %s wrote other bytes than stdout (%v)", file, err)
	}
}

func TestK8sRenderBrokenStudyIsReportedWithFileAndLine(t *testing.T) {
	path := k8sStudyFile(t, strings.Replace(k8sStudy, "clients = [4]", "clients = [4]\nbogus = 1", 1))
	_, err := runK8s(t, "render", path, "--generators", "2", "--image", "img", "--results", "postgres://fb@stats/fb")
	if err == nil || !strings.Contains(err.Error(), path+":") || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("err %v, want the study's file:line error naming bogus", err)
	}
}

func TestK8sRenderRefusalWritesNoFile(t *testing.T) {
	path := k8sStudyFile(t, k8sStudy)
	file := filepath.Join(t.TempDir(), "out.yaml")
	_, err := runK8s(t, "render", path, "--image", "img", "--results", "postgres://fb@stats/fb", "-o", file)
	if err == nil || !strings.Contains(err.Error(), "--generators 0: at least one generator") {
		t.Fatalf("err %v, want a refusal of the missing --generators", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a refused render left %s behind (%v)", file, err)
	}
}

// Without --generators, render takes the study's own generators = N.
func TestK8sRenderTakesTheStudysGenerators(t *testing.T) {
	path := k8sStudyFile(t, strings.Replace(k8sStudy, "clients = [4]", "clients = [4]\ngenerators = 3", 1))
	out, err := runK8s(t, "render", path, "--image", "img:1", "--results", "postgres://fb@stats/fb")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "parallelism: 3") {
		t.Errorf("render without --generators did not take the study's 3:\n%s", out)
	}
	path = k8sStudyFile(t, k8sStudy)
	if _, err := runK8s(t, "render", path, "--image", "img:1", "--results", "postgres://fb@stats/fb"); err == nil || !strings.Contains(err.Error(), "give --generators N, or generators = N") {
		t.Errorf("a study without generators and no --generators: %v", err)
	}
}
