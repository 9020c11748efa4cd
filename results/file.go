package results

// File returns the SQLite file a store address names, if it names one.
func File(addr string) (string, bool) { return sqliteFile(addr) }
