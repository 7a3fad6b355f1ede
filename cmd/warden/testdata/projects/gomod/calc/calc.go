// Package calc adds numbers.
package calc

// Sum adds a and b.
func Sum(a, b int) int { return a + b }
