package results

// Name is the store as given, with any password redacted, for messages.
func (s *Store) Name() string { return s.name }
