package spec

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// javaCases are inputs with what java.util.Properties.load makes of them.
// The expectations were produced by Java 17 itself (a 20-line program that
// loads stdin and prints the sorted map); TestJavaAgrees re-checks them when
// a JDK is at hand.
var javaCases = []struct {
	name, in string
	want     map[string]string // nil: an error
}{
	{"escaped separator in key", "a\\=b=c\n", map[string]string{"a=b": "c"}},
	{"escaped space, tab and backslash", "k\\ ey = v\\tw\\\\x\n", map[string]string{"k ey": "v\tw\\x"}},
	{"unicode escapes and a surrogate pair", "u=\\u00e9\\u4e2d\\uD83D\\uDE00\n", map[string]string{"u": "é中😀"}},
	{"CRLF, CR and LF", "x=1\r\ny=2\rz=3\n", map[string]string{"x": "1", "y": "2", "z": "3"}},
	{"continuation; escaped backslash ends it", "cont=a\\\n   b\\\\\nnext=1\n", map[string]string{"cont": "ab\\", "next": "1"}},
	{"a comment is never continued", "# c \\\nnot=continued\n", map[string]string{"not": "continued"}},
	{"trailing white space is kept", "trail=v  \n", map[string]string{"trail": "v  "}},
	{"key alone", "onlykey\n", map[string]string{"onlykey": ""}},
	{"one separator only", "k:=v\n", map[string]string{"k": "=v"}},
	{"space then separators", "k = = v\n", map[string]string{"k": "= v"}},
	{"space around colon", "k  :  v\n", map[string]string{"k": "v"}},
	{"malformed unicode escape", "bad=\\u12\n", nil},
	{"unknown escape stands for itself; continuation at end of input", "e=\\q\\\n", map[string]string{"e": "q"}},
	{"no final newline", "last=x\\", map[string]string{"last": "x"}},
	{"blank, comment, space separator", "  \t\f  \n  ! c\n a b c\n", map[string]string{"a": "b c"}},
	{"an empty continuation line ends the line", "k=v\\\n\n  w\n", map[string]string{"k": "v", "w": ""}},
}

func TestPropertiesLikeJava(t *testing.T) {
	for _, tc := range javaCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseProperties("f", strings.NewReader(tc.in))
			if tc.want == nil {
				if err == nil || !strings.Contains(err.Error(), "f:1") {
					t.Fatalf("error = %v, want one at f:1", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m := map[string]string{}
			for _, p := range got {
				m[p.key] = p.value
			}
			if !equalMaps(m, tc.want) {
				t.Errorf("got %q, want %q", m, tc.want)
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Lines of any length, and the line number of a continued property is the
// line it starts on.
func TestLongLinesAndLineNumbers(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	got, err := parseProperties("f", strings.NewReader("# c\r\n\r\nk=a\\\r\n b\r\nlong="+long+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].line != 3 || got[0].value != "ab" || got[1].line != 5 || len(got[1].value) != len(long) {
		t.Errorf("got %d properties: %+v…", len(got), got[0])
	}
}

func TestOversizedInputIsRefused(t *testing.T) {
	_, err := parseProperties("zero", io.LimitReader(zeros{}, MaxFileSize+10))
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("error = %v, want a size error", err)
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = 'a'
	}
	return len(b), nil
}

// TestJavaAgrees runs every case through Java's own Properties.load when a
// JDK is installed (scripts/test has one), so the table above cannot drift
// from Java's behaviour.
func TestJavaAgrees(t *testing.T) {
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Skip("no JDK: the expectations were taken from Java 17")
	}
	dir := t.TempDir()
	src := `import java.io.*; import java.util.*;
public class P { public static void main(String[] a) throws Exception {
  // UTF-8 whatever the locale (System.out follows it: ASCII without LANG).
  PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
  Properties p = new Properties();
  try { p.load(new InputStreamReader(System.in, "UTF-8")); } catch (IllegalArgumentException e) { out.print("ERROR"); out.flush(); return; }
  for (String k : new TreeSet<>(p.stringPropertyNames())) out.print(k + "\u0000" + p.getProperty(k) + "\u0000");
  out.flush();
} }`
	if err := os.WriteFile(filepath.Join(dir, "P.java"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(javac, "-d", dir, filepath.Join(dir, "P.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	for _, tc := range javaCases {
		cmd := exec.Command("java", "-cp", dir, "P")
		cmd.Stdin = strings.NewReader(tc.in)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: java: %v", tc.name, err)
		}
		if string(out) == "ERROR" {
			if tc.want != nil {
				t.Errorf("%s: Java refuses the input, the table expects %q", tc.name, tc.want)
			}
			continue
		}
		parts := strings.Split(string(out), "\x00")
		java := map[string]string{}
		for i := 0; i+1 < len(parts); i += 2 {
			java[parts[i]] = parts[i+1]
		}
		if !equalMaps(java, tc.want) {
			t.Errorf("%s: Java gives %q, the table expects %q", tc.name, java, tc.want)
		}
	}
}
