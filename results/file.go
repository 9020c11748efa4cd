package results

// File returns the SQLite file a store address names, if it names one (not
// for PostgreSQL, nor for a file: URI whose options may name none).
func File(addr string) (string, bool) {
	a, err := parseStoreAddr(addr)
	return a.file, err == nil && a.file != ""
}

// DisplayName is how a store address may be printed or stored: its
// password removed by the address's own format; nothing of it when it does
// not parse.
func DisplayName(addr string) string {
	a, err := parseStoreAddr(addr)
	if err != nil {
		return "REDACTED"
	}
	return a.name
}
