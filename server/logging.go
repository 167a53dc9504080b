package server

import (
	"log"
	"log/slog"
)

// slogErrorLog routes net/http's own messages (TLS handshakes, bad
// requests it answers itself) into the structured log at warn level.
func slogErrorLog(l *slog.Logger) *log.Logger {
	return slog.NewLogLogger(l.Handler(), slog.LevelWarn)
}
