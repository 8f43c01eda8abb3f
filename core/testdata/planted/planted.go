package planted

import (
	"math/rand"
	"sync"
	clock "time"
)

var ch = make(chan int, 1)

func bad() {
	_ = clock.Now()
	var mu sync.Mutex
	go func() {}()
	ch <- 1
	<-ch
	select {}
	clock.Sleep(1)
	_ = rand.Int()
	mu.Lock()
}
