//go:build !race

package project

const raceEnabled = false
