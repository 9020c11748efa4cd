package spec

import (
	"net/url"
	"regexp"
	"strings"
)

// secretKey matches property names whose values are secrets.
var secretKey = regexp.MustCompile(`(?i)(password|passwd|secret|token)`)

// dsnPassword matches "password=..." inside key=value DSNs (libpq style).
var dsnPassword = regexp.MustCompile(`(?i)(password=)([^\s&;]+)`)

// userinfoPassword matches "user:secret@" inside URLs and Go MySQL DSNs
// ("user:secret@tcp(host)/db") that net/url cannot parse.
var userinfoPassword = regexp.MustCompile(`^([a-zA-Z][a-zA-Z0-9+.-]*://)?([^:/@\s]+):([^@\s]*)@`)

// Redact removes any password from a URL or DSN so it can be stored or printed.
func Redact(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			s = u.String()
			s = strings.Replace(s, "xxxxx", "REDACTED", 1)
		}
	} else {
		s = userinfoPassword.ReplaceAllString(s, "${1}${2}:REDACTED@")
	}
	return dsnPassword.ReplaceAllString(s, "${1}REDACTED")
}

// RedactProp redacts the value of a property: wholly when its name says it is a
// secret, else any password embedded in it.
func RedactProp(key, value string) string {
	if secretKey.MatchString(key) && value != "" {
		return "REDACTED"
	}
	return Redact(value)
}

// RedactText redacts every "key=value" line of a properties text, so the text
// of a property file can be stored with a run.
func RedactText(text string) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed == "" || trimmed[0] == '#' || trimmed[0] == '!' {
			continue
		}
		j := strings.IndexAny(trimmed, "=:")
		if j < 0 {
			continue
		}
		key := strings.TrimSpace(trimmed[:j])
		lines[i] = line[:len(line)-len(trimmed)] + trimmed[:j+1] + RedactProp(key, strings.TrimSpace(trimmed[j+1:]))
	}
	return strings.Join(lines, "\n")
}

// RedactSecretsOf replaces, in msg, every secret that the property key=value
// holds (the whole value of a secret key, a URL's or DSN's password) with
// REDACTED: a message that quotes the value, or a parser's error that
// repeats part of it, never shows the secret.
func RedactSecretsOf(key, value, msg string) string {
	var secrets []string
	if secretKey.MatchString(key) && value != "" {
		secrets = append(secrets, value)
	}
	if u, err := url.Parse(value); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			secrets = append(secrets, pw)
		}
	}
	for _, item := range strings.Split(value, ",") {
		if m := userinfoPassword.FindStringSubmatch(strings.TrimSpace(item)); m != nil {
			secrets = append(secrets, m[3])
		}
	}
	for _, m := range dsnPassword.FindAllStringSubmatch(value, -1) {
		secrets = append(secrets, m[2])
	}
	for _, s := range secrets {
		if len(s) >= 1 {
			msg = strings.ReplaceAll(msg, s, "REDACTED")
		}
	}
	return msg
}
