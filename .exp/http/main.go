package main

import (
	"os"
	_ "github.com/mattn/go-sqlite3"
	_ "net/http"
)

func main() { os.Stdout.WriteString("hi\n") }
