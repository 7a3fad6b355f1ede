package orgpolicy

// LoadFrom is a loader of another folder: for this package's tests only.
// Every other test proves the fixed path with orgtest.Mount.
func LoadFrom(dir string) Loader { return Loader{dir: dir} }
