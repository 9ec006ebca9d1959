// A fake engine for the proxy benchmark in Go, as the issue's own measurement used: the same answers
// as fake-engine.ts (GET /_ping: OK; GET /containers/json: the list in LIST_FILE, written by
// bench/proxy.ts from container-list.ts) on a unix socket, keep-alive, at a fraction of Node's CPU per
// request, so that more of the machine's two cores is left to the proxies under test.
//
//	go build -o fake-engine bench/lib/fake-engine.go && ./fake-engine SOCKET LIST_FILE
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: fake-engine SOCKET LIST_FILE")
		os.Exit(2)
	}
	socket := os.Args[1]
	list, err := os.ReadFile(os.Args[2])
	if err != nil {
		panic(err)
	}
	ok := []byte("OK")
	version := regexp.MustCompile(`^/v[0-9.]+`)
	os.Remove(socket)
	listener, err := net.Listen("unix", socket)
	if err != nil {
		panic(err)
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := version.ReplaceAllString(r.URL.Path, "")
		var body []byte
		contentType := "application/json"
		switch path {
		case "/_ping":
			body, contentType = ok, "text/plain; charset=utf-8"
		case "/containers/json":
			body = list
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"message":"not in the fake engine"}`))
			return
		}
		header := w.Header()
		header.Set("Content-Type", contentType)
		header.Set("Content-Length", strconv.Itoa(len(body)))
		header.Set("Api-Version", "1.47")
		w.WriteHeader(http.StatusOK)
		w.Write(body)
	})
	fmt.Printf("fake engine (Go) on %s: list %d bytes\n", socket, len(list))
	panic(http.Serve(listener, handler))
}
