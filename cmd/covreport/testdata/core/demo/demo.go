package demo

var table = []func() int{
	func() int { return 1 },
}

func Used(x int) int {
	if x > 0 {
		return x
	}
	return -x
}

func Rare(x int) int {
	if x == 42 {
		return 0
	}
	return x
}

func Never() int {
	return table[0]()
}
