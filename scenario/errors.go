package scenario

// BadInput is a mistake in a scenario found before anything ran or was
// stored (the CLI's exit code 2), where no file position tells it: a
// Kubernetes section that does not reach its API server, a namespace that
// does not exist, permissions the faults lack.
type BadInput struct{ Err error }

func (e *BadInput) Error() string { return e.Err.Error() }
func (e *BadInput) Unwrap() error { return e.Err }
