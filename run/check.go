package run

// Check reports what is wrong with a config before anything runs: run says
// whether it is for Run (which needs a bound) or only for Load.
func (c Config) Check(run bool) error {
	_, err := c.withDefaults(run)
	return err
}
