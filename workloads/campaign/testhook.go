//go:build ckptsim_testhooks

package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Built with the ckptsim_testhooks tag (never in a release build), a
// WriteFile of a file whose base name is $CKPTSIM_PAUSE_WRITE prints
// "campaign: paused writing PATH" on stderr with its temporary file
// written and waits a minute before the rename: a test's window to
// interrupt the process in the middle of an atomic write
// (cmd/simrun's TestInterruptAgainWhileWriting).
func init() {
	name := os.Getenv("CKPTSIM_PAUSE_WRITE")
	if name == "" {
		return
	}
	beforeRename = func(tmp, path string) {
		if filepath.Base(path) != name {
			return
		}
		fmt.Fprintf(os.Stderr, "campaign: paused writing %s (%s)\n", path, filepath.Base(tmp))
		time.Sleep(time.Minute)
	}
}
