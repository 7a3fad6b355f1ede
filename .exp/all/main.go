package main

import (
	"os"
	_ "github.com/mattn/go-sqlite3"
	_ "net/http"
	_ "golang.org/x/crypto/ssh"
	_ "html/template"
	_ "image/png"
)

func main() { os.Stdout.WriteString("hi\n") }
