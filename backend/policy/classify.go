package policy

import classifier "github.com/warden-dev/warden/backend/policy/shell"

// The shell classifier lives in backend/policy/shell; the decision reads
// its verdicts through these names.

// Class is what a shell command would do, ordered from harmless to worst.
type Class = classifier.Class

// Classification is the classifier's verdict on a whole script.
type Classification = classifier.Classification

const (
	ClassReadOnly    = classifier.ClassReadOnly
	ClassWrite       = classifier.ClassWrite
	ClassNetwork     = classifier.ClassNetwork
	ClassUnknown     = classifier.ClassUnknown
	ClassDestructive = classifier.ClassDestructive
)

// ClassifyShell classifies a bash script run in cwd; see shell.Classify.
func ClassifyShell(command, cwd string) Classification { return classifier.Classify(command, cwd) }

// ClassifyShellWith classifies a bash script run in cwd whose paths pass
// through the given symbolic links (Effect.Links); see shell.ClassifyWith.
func ClassifyShellWith(command, cwd string, links map[string]string) Classification {
	return classifier.ClassifyWith(command, cwd, links)
}

// ShellLinks finds, with readlink (os.Readlink), the symbolic links on disk
// that a command's paths pass through: the tool computing an Exec effect
// puts them in Effect.Links. See shell.ResolveLinks.
func ShellLinks(command, cwd string, readlink func(string) (string, error)) map[string]string {
	return classifier.ResolveLinks(command, cwd, readlink)
}

// ParseClass reads a class in its kebab-case form.
func ParseClass(s string) (Class, error) { return classifier.ParseClass(s) }
