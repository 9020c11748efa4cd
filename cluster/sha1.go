package cluster

import (
	"crypto/sha1"
	"encoding/hex"
	"io"
	"os"
)

// FileSHA1 is the hex SHA-1 of a file: how recipes whose jars come from
// Maven Central (Hazelcast, Cassandra) check their cached copies.
func FileSHA1(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha1.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
