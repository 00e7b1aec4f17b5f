package main

func f(x int) int {
	if x > 0 {
		return x
	}
	return 0
}
