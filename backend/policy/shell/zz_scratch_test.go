package shell

import (
	"bufio"
	"fmt"
	"os"
	"testing"
)

func TestZZScratch(t *testing.T) {
	f := os.Getenv("SCRATCH")
	if f == "" {
		t.Skip()
	}
	fh, _ := os.Open(f)
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		c := Classify(sc.Text(), "/work/ws")
		fmt.Printf("%-11s %-40q sig=%q w=%q l=%q u=%q d=%q\n", c.Class, sc.Text(), c.Signature, c.Writes, c.Links, c.Unknown, c.Destructive)
	}
}
