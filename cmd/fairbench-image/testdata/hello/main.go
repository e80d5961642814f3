// Command hello is a tiny program the fairbench-image test cross-builds
// instead of fairbench, so that the test checks the cross-build without
// compiling all of fairbench twice.
package main

import "fmt"

func main() { fmt.Println("hello from the fairbench-image test") }
