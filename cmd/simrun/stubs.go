package main

import "io"

func replayCmd(args []string, stdout, stderr io.Writer) int  { return 0 }
func shrinkCmd(args []string, stdout, stderr io.Writer) int  { return 0 }
func listCmd(args []string, stdout, stderr io.Writer) int    { return 0 }
func compareCmd(args []string, stdout, stderr io.Writer) int { return 0 }
func helpCmd(args []string, stdout, stderr io.Writer) int    { return 0 }
