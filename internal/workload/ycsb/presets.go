package ycsb

import "fmt"

// presets are the property values of YCSB's workloads/workload[a-f] (YCSB
// d9faaac8), value for value.
var presets = map[string]map[string]string{
	"a": {"readproportion": "0.5", "updateproportion": "0.5", "scanproportion": "0", "insertproportion": "0", "requestdistribution": "zipfian"},
	"b": {"readproportion": "0.95", "updateproportion": "0.05", "scanproportion": "0", "insertproportion": "0", "requestdistribution": "zipfian"},
	"c": {"readproportion": "1", "updateproportion": "0", "scanproportion": "0", "insertproportion": "0", "requestdistribution": "zipfian"},
	"d": {"readproportion": "0.95", "updateproportion": "0", "scanproportion": "0", "insertproportion": "0.05", "requestdistribution": "latest"},
	"e": {"readproportion": "0", "updateproportion": "0", "scanproportion": "0.95", "insertproportion": "0.05", "requestdistribution": "zipfian", "maxscanlength": "100", "scanlengthdistribution": "uniform"},
	"f": {"readproportion": "0.5", "updateproportion": "0", "scanproportion": "0", "insertproportion": "0", "readmodifywriteproportion": "0.5", "requestdistribution": "zipfian"},
}

// presetCommon are the values every one of YCSB's workload files sets.
var presetCommon = map[string]string{
	"recordcount": "1000", "operationcount": "1000",
	"workload": "site.ycsb.workloads.CoreWorkload", "readallfields": "true",
}

// presetNames are the presets, YCSB's core workloads A–F.
var presetNames = []string{"a", "b", "c", "d", "e", "f"}

// preset adds the properties of YCSB's workloads/workload<name> (name a–f)
// to into, as -P workloads/workload<name> would.
func preset(name string, into props) error {
	p, ok := presets[name]
	if !ok {
		return fmt.Errorf("ycsb: no preset %q (have a–f)", name)
	}
	src := "preset workload" + name
	for k, v := range presetCommon {
		into.set(k, v, src)
	}
	for k, v := range p {
		into.set(k, v, src)
	}
	return nil
}
