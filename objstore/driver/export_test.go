package driver

// ForgetInProcess drops this process's verdict on location, as a new
// process starts without one.
func ForgetInProcess(location string) { probes.Delete(location) }
