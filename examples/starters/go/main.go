// Starter bot for the `go` runtime: a uniformly random legal action, in every game.
//
// Built on the server as `go build -o bot .` (Debian's Go 1.19, the standard library only,
// no module downloads: go.mod says `module bot`), run as `./bot`. Put your logic in choose.
//
// stdout is the protocol channel: one line per message, flushed at once. Log to stderr.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
)

// seed: the generator is seeded again at each start from this and the match's place in its
// series, so a match plays the same way whichever process plays it.
const seed = 12345

// message is any line the runner sends; only the fields of its type are set.
type message struct {
	Type   string `json:"type"`
	Game   string `json:"game"`
	Seat   int    `json:"seat"`
	Series struct {
		Match int `json:"match"`
	} `json:"series"`
	Observation map[string]any `json:"observation"`
	TimeLeft    float64        `json:"time_left"`
	Winner      int            `json:"winner"`
	Scores      []int          `json:"scores"`
}

// choose returns one of observation["legal_actions"], exactly as listed. timeLeft is the
// seconds this reply may take (the decision limit plus what is left of the time bank).
func choose(observation map[string]any, timeLeft float64, rng *rand.Rand) any {
	legal := observation["legal_actions"].([]any)
	return legal[rng.Intn(len(legal))]
}

// send writes one line. os.Stdout is not buffered in Go: each Write is sent at once. (If you
// wrap it in a bufio.Writer, call Flush after each line.)
func send(value any) {
	line, err := json.Marshal(value)
	if err != nil {
		panic(err)
	}
	if _, err := os.Stdout.Write(append(line, '\n')); err != nil {
		panic(err)
	}
}

func main() {
	rng := rand.New(rand.NewSource(seed))
	// A line may be long (a whole observation): ReadBytes has no line limit, unlike Scanner.
	input := bufio.NewReader(os.Stdin)
	for {
		line, err := input.ReadBytes('\n')
		if err == io.EOF && len(line) == 0 {
			return // the end of input ends the series
		} else if err != nil && err != io.EOF {
			panic(err)
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			panic(err)
		}
		switch m.Type {
		case "start":
			match := m.Series.Match
			if match == 0 {
				match = 1
			}
			rng = rand.New(rand.NewSource(seed + int64(match)))
			fmt.Fprintf(os.Stderr, "start: %s seat %d\n", m.Game, m.Seat)
			// "series": true: keep this process for the series' next matches.
			send(map[string]any{"type": "ready", "series": true})
		case "decide":
			send(map[string]any{"action": choose(m.Observation, m.TimeLeft, rng)})
		case "end":
			// No answer; the next line is the next match's start, or the input ends.
			fmt.Fprintf(os.Stderr, "end: winner %d, scores %v\n", m.Winner, m.Scores)
		}
	}
}
