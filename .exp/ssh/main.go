package main

import (
	"os"
	_ "github.com/mattn/go-sqlite3"
	_ "golang.org/x/crypto/ssh"
)

func main() { os.Stdout.WriteString("hi\n") }
