// A keep-alive load generator in Go for bench/proxy.ts, as the issue's own figures were measured: the
// same load as load.ts (N connections, one request in flight on each, the next as soon as the answer
// ended, answers parsed by Go's own HTTP reader), at a fraction of Node's CPU per request, so that
// more of a 2-core machine is left to what is measured. Prints one JSON object: the latency of each
// answer in µs, the answers that were not 2xx plus connection errors, the elapsed seconds, and the
// CPU time (user + system) this process spent, in µs.
//
//	go build -o load bench/lib/load.go
//	./load unix:/path/engine.sock|tcp:127.0.0.1:2375 CONNECTIONS DURATION_MS MAX_REQUESTS REQUEST_FILE
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

type result struct {
	Latencies      []float64 `json:"latencies"`
	Errors         int64     `json:"errors"`
	ElapsedSeconds float64   `json:"elapsedSeconds"`
	CPUMicros      int64     `json:"cpuMicros"`
}

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: load unix:PATH|tcp:HOST:PORT CONNECTIONS DURATION_MS MAX_REQUESTS REQUEST_FILE")
		os.Exit(2)
	}
	network, address, _ := strings.Cut(os.Args[1], ":")
	connections, _ := strconv.Atoi(os.Args[2])
	durationMs, _ := strconv.Atoi(os.Args[3])
	maxRequests, _ := strconv.ParseInt(os.Args[4], 10, 64)
	request, err := os.ReadFile(os.Args[5])
	if err != nil {
		panic(err)
	}
	var answered, errors int64
	latencies := make([][]float64, connections)
	started := time.Now()
	deadline := started.Add(time.Duration(durationMs) * time.Millisecond)
	var wait sync.WaitGroup
	for c := 0; c < connections; c++ {
		wait.Add(1)
		go func(c int) {
			defer wait.Done()
			conn, err := net.Dial(network, address)
			if err != nil {
				atomic.AddInt64(&errors, 1)
				return
			}
			defer conn.Close()
			reader := bufio.NewReaderSize(conn, 128*1024)
			own := make([]float64, 0, 1<<14)
			defer func() { latencies[c] = own }()
			for time.Now().Before(deadline) && atomic.LoadInt64(&answered) < maxRequests {
				sent := time.Now()
				if _, err := conn.Write(request); err != nil {
					atomic.AddInt64(&errors, 1)
					return
				}
				response, err := http.ReadResponse(reader, nil)
				if err == nil {
					_, err = io.Copy(io.Discard, response.Body)
					response.Body.Close()
				}
				if err != nil {
					atomic.AddInt64(&errors, 1)
					return
				}
				own = append(own, float64(time.Since(sent).Nanoseconds())/1000)
				atomic.AddInt64(&answered, 1)
				if response.StatusCode < 200 || response.StatusCode > 299 {
					atomic.AddInt64(&errors, 1)
				}
			}
		}(c)
	}
	wait.Wait()
	out := result{Errors: errors, ElapsedSeconds: time.Since(started).Seconds(), Latencies: []float64{}}
	for _, own := range latencies {
		out.Latencies = append(out.Latencies, own...)
	}
	var usage syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	out.CPUMicros = usage.Utime.Nano()/1000 + usage.Stime.Nano()/1000
	json.NewEncoder(os.Stdout).Encode(out)
}
