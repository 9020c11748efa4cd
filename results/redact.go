package results

import (
	"regexp"
	"strings"

	"github.com/dbrig/dbrig/spec"
)

var word = regexp.MustCompile(`\S+`)

// isSecretKey tells whether spec considers a property name secret.
func isSecretKey(key string) bool { return key != "" && spec.RedactProp(key, "x") != "x" }

// redactWords removes secrets from free text such as a command line or an
// error message, word by word: "key=value" words are redacted as properties
// (-p postgres.password=…), URLs and DSNs lose their passwords, and the word
// after a secret flag (--password …) is dropped. The caller should already
// have redacted; this is the store's second line of defence.
func redactWords(s string) string {
	afterSecretFlag := false
	return word.ReplaceAllStringFunc(s, func(w string) string {
		if afterSecretFlag {
			afterSecretFlag = false
			return "REDACTED"
		}
		if k, v, ok := strings.Cut(w, "="); ok && k != "" && !strings.Contains(k, "://") {
			return k + "=" + spec.RedactProp(strings.TrimLeft(k, "-"), v)
		}
		if strings.HasPrefix(w, "-") && isSecretKey(strings.TrimLeft(w, "-")) {
			afterSecretFlag = true
			return w
		}
		return spec.Redact(w)
	})
}
