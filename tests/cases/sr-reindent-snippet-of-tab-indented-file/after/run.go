package main

func run(xs []int) int {
	n := 0
	for _, x := range xs {
		if x > 0 {
			n += x
		}
	}
	return n
}
