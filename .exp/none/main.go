package main

import (
	"os"
	_ "github.com/mattn/go-sqlite3"
)

func main() { os.Stdout.WriteString("hi\n") }
