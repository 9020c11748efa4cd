package spec

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxFileSize bounds a property file: YCSB's are a few KB, and reading an
// unbounded stream (a FIFO, /dev/zero) must not exhaust memory.
const MaxFileSize = 16 << 20

// property is one key and value of a property file with the line it began on.
type property struct {
	key, value string
	line       int
}

// parseProperties reads r exactly as java.util.Properties.load does, so
// YCSB's own files mean the same here: lines end at LF, CR or CRLF; leading
// white space (space, tab, form feed) is skipped; a natural line whose first
// other character is '#' or '!' is a comment; an odd number of backslashes
// at the end of a line continues it on the next (whose leading white space
// is skipped); the key ends at the first unescaped '=', ':' or white space;
// then white space and at most one '=' or ':' are skipped; the rest of the
// line, trailing white space included, is the value; escapes \t \n \r \f
// and \uXXXX are decoded in keys and values and any other escaped character
// stands for itself. Input is treated as UTF-8 (Java reads a Reader; YCSB's
// files are ASCII). name is used in errors, which carry file:line.
func parseProperties(name string, r io.Reader) ([]property, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("property file %s: %w", name, err)
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("property file %s: larger than %d MB: expected a property file", name, MaxFileSize>>20)
	}
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("property file %s: not UTF-8 text", name)
	}
	var out []property
	lines := splitLines(string(b))
	for i := 0; i < len(lines); i++ {
		start := i
		line := trimLeadingSpace(lines[i])
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue // blank or comment: never continued
		}
		var logical strings.Builder
		for {
			if n := trailingBackslashes(line); n%2 == 1 {
				logical.WriteString(line[:len(line)-1])
				if i+1 >= len(lines) {
					break // a continuation at the end of input ends the line
				}
				i++
				line = trimLeadingSpace(lines[i])
				continue
			}
			logical.WriteString(line)
			break
		}
		key, value, err := splitKeyValue(logical.String())
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, start+1, err)
		}
		out = append(out, property{key: key, value: value, line: start + 1})
	}
	return out, nil
}

// splitLines cuts s at LF, CR and CRLF.
func splitLines(s string) []string {
	var lines []string
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	return lines
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

func trimLeadingSpace(s string) string {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return s[i:]
}

func trailingBackslashes(s string) int {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n
}

// splitKeyValue splits a logical line as Properties.load0 does.
func splitKeyValue(line string) (key, value string, err error) {
	keyLen, valueStart, hasSep, escaped := 0, len(line), false, false
	for keyLen < len(line) {
		c := line[keyLen]
		if !escaped && (c == '=' || c == ':') {
			valueStart, hasSep = keyLen+1, true
			break
		}
		if !escaped && isSpace(c) {
			valueStart = keyLen + 1
			break
		}
		escaped = c == '\\' && !escaped
		keyLen++
	}
	for valueStart < len(line) {
		c := line[valueStart]
		if !isSpace(c) {
			if hasSep || (c != '=' && c != ':') {
				break
			}
			hasSep = true
		}
		valueStart++
	}
	if key, err = unescape(line[:keyLen]); err != nil {
		return "", "", err
	}
	if valueStart > len(line) {
		valueStart = len(line)
	}
	value, err = unescape(line[valueStart:])
	return key, value, err
}

// unescape decodes Properties escapes.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			break // a lone trailing backslash stands for nothing, as in Java
		}
		switch c = s[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			r, err := hex4(s, i+1)
			if err != nil {
				return "", err
			}
			i += 4
			// A character outside the BMP is written as a surrogate pair
			// of two escapes; a lone surrogate becomes U+FFFD.
			if utf16.IsSurrogate(r) && i+6 <= len(s) && strings.HasPrefix(s[i+1:], `\u`) {
				if lo, err := hex4(s, i+3); err == nil {
					if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
						r = pair
						i += 6
					}
				}
			}
			b.WriteRune(r)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// hex4 decodes the four hex digits of a \uXXXX escape starting at s[i].
func hex4(s string, i int) (rune, error) {
	if i+4 > len(s) {
		return 0, fmt.Errorf(`malformed \uXXXX escape %q: expected four hex digits`, `\u`+s[i:])
	}
	v, err := strconv.ParseUint(s[i:i+4], 16, 16)
	if err != nil {
		return 0, fmt.Errorf(`malformed \uXXXX escape %q: expected four hex digits`, `\u`+s[i:i+4])
	}
	return rune(v), nil
}

// WithoutComments returns a property file's text with every comment line
// emptied (the line stays, so file:line positions hold): comments are not
// configuration, and a copy of the file (a ConfigMap) must not carry an old
// password commented out. A continuation line that starts with '#' is part
// of a value and kept.
func WithoutComments(text []byte) []byte {
	s := string(text)
	var b strings.Builder
	cont := false // the previous line continues on this one
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		line, eol := s, ""
		if i >= 0 {
			j := i + 1
			if s[i] == '\r' && j < len(s) && s[j] == '\n' {
				j++
			}
			line, eol = s[:i], s[i:j]
			s = s[j:]
		} else {
			s = ""
		}
		t := trimLeadingSpace(line)
		comment := !cont && t != "" && (t[0] == '#' || t[0] == '!')
		if !comment {
			b.WriteString(line)
		}
		b.WriteString(eol)
		cont = !comment && t != "" && trailingBackslashes(line)%2 == 1
	}
	return []byte(b.String())
}
