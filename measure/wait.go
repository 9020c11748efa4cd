package measure

// StartWait is how long, on average, a phase's operations waited between
// their intended start and their actual start, and why: the mean response
// time less the mean service time (exact for means: response time is wait
// plus service time per operation), split into the dispatch lag (dbrig's
// own lateness, Summary.Lag) and the rest, queueing behind a client still
// busy with an earlier operation (the system was slow; at --clients 1 every
// slow operation delays the ones due after it). All in µs, from the
// histograms, so a stored run gives the same.
type StartWait struct {
	MeanUS      float64 // mean of response − service time
	LagMeanUS   float64 // of it, the dispatch lag's mean
	QueueMeanUS float64 // and the wait for a busy client: MeanUS − LagMeanUS
}

// StartWait splits the phase's mean wait before the start; zero when
// operations started when intended (the closed model without pacing).
func (s Summary) StartWait() StartWait {
	if s.Overall.Count == 0 {
		return StartWait{}
	}
	w := StartWait{MeanUS: max(0, s.Overall.Response.Mean-s.Overall.Service.Mean)}
	w.LagMeanUS = min(max(0, s.Lag.Mean), w.MeanUS) // histogram rounding may leave it a hair above
	w.QueueMeanUS = w.MeanUS - w.LagMeanUS
	return w
}
