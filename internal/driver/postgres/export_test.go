package postgres

import "github.com/fairbench/fairbench/internal/driver"

// SamplerStatements is how many statements a server view sampler sent.
func SamplerStatements(s driver.ServerSampler) int { return s.(*sampler).statements }
