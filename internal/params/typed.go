package params

// Typed reads recorded parameter values (a results file's: whole numbers as
// int64, lists as []any) as the specs declare them: each value a spec names
// in its spec's Go type (an Int as int64, a Float as float64, a StringList
// as []string), so that code reading them needs no type switch. A value that
// does not convert is left out; a value no spec names is kept as it is.
// Bounds, choices and checks are not applied: a recorded value outside
// today's bounds still says what was run.
func Typed(specs []Spec, recorded Values) Values {
	out := make(Values, len(recorded))
	for name, raw := range recorded {
		s, ok := Find(specs, name)
		if !ok {
			out[name] = raw
			continue
		}
		asType := Spec{Name: s.Name, Kind: s.Kind}
		if v, err := Coerce(asType, raw); err == nil {
			out[name] = v
		}
	}
	return out
}
