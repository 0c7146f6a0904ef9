// mcpclient: the official MCP Go SDK (github.com/modelcontextprotocol/go-sdk) as a client nobody here wrote. It starts
// the command given on its command line as an MCP server over stdio, lists the tools, calls each one named in the JSON
// calls read from stdin, and checks each answer's structuredContent against the tool's declared outputSchema with
// Google's JSON Schema implementation (github.com/google/jsonschema-go, the one the SDK uses). It prints one JSON line
// per call: {"tool", "isError", "valid", "problem"}; an error answer without structuredContent is valid.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type call struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

type outcome struct {
	Tool    string `json:"tool"`
	IsError bool   `json:"isError"`
	Valid   bool   `json:"valid"`
	Problem string `json:"problem,omitempty"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mcpclient <server command> [args...] < calls.json")
		os.Exit(2)
	}
	var calls []call
	if err := json.NewDecoder(os.Stdin).Decode(&calls); err != nil {
		fmt.Fprintln(os.Stderr, "calls:", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "kubectl-arch-go-sdk-test", Version: "0"}, nil)
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		os.Exit(1)
	}
	defer session.Close()
	schemas := map[string]*jsonschema.Resolved{}
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "list tools:", err)
		os.Exit(1)
	}
	for _, t := range tools.Tools {
		if t.OutputSchema == nil {
			fmt.Printf("{\"tool\":%q,\"valid\":false,\"problem\":\"no outputSchema\"}\n", t.Name)
			continue
		}
		raw, _ := json.Marshal(t.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			fmt.Printf("{\"tool\":%q,\"valid\":false,\"problem\":%q}\n", t.Name, "outputSchema: "+err.Error())
			continue
		}
		r, err := s.Resolve(nil)
		if err != nil {
			fmt.Printf("{\"tool\":%q,\"valid\":false,\"problem\":%q}\n", t.Name, "outputSchema: "+err.Error())
			continue
		}
		schemas[t.Name] = r
	}
	enc := json.NewEncoder(os.Stdout)
	for _, c := range calls {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
		o := outcome{Tool: c.Tool}
		if err != nil {
			o.Problem = "call: " + err.Error()
			_ = enc.Encode(o)
			continue
		}
		o.IsError = res.IsError
		r, ok := schemas[c.Tool]
		if res.IsError && res.StructuredContent == nil {
			// an error's text is the answer; its structured content would have to match the schema too
			o.Valid = true
		} else if !ok {
			o.Problem = "no usable outputSchema"
		} else if res.StructuredContent == nil {
			o.Problem = "no structuredContent"
		} else {
			// the structured content as the wire carried it, then checked against the declared schema
			raw, _ := json.Marshal(res.StructuredContent)
			var v any
			_ = json.Unmarshal(raw, &v)
			if err := r.Validate(v); err != nil {
				o.Problem = err.Error()
			} else {
				o.Valid = true
			}
		}
		_ = enc.Encode(o)
	}
}
