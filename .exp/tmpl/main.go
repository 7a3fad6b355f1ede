package main

import (
	"os"
	_ "github.com/mattn/go-sqlite3"
	_ "html/template"
)

func main() { os.Stdout.WriteString("hi\n") }
