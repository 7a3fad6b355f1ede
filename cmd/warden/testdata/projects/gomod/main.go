package main

import (
	"fmt"

	"example.com/calc/calc"
)

func main() { fmt.Println("sum", calc.Sum(2, 3)) }
