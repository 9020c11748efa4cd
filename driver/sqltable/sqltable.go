// Package sqltable builds the SQL that the SQL drivers (postgres, mysql,
// sqlite) run against the YCSB table
//
//	usertable(ycsb_key <key type> PRIMARY KEY, field0 <value type>, …, fieldN-1 <value type>)
//
// for one dialect. Statements are built once per table, kind and field set and
// then looked up without locks or string building, so the hot path of a driver
// only binds arguments. A driver may attach a prepared handle to each statement
// (database/sql drivers do; pgx prepares and caches by SQL text itself).
//
// The drivers also share here what they read the same way (Options: timeout,
// pool size, layout, table), the set of tables they created (Tables) and the
// classes of network errors (NetClass).
package sqltable

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Dialect is what differs between SQL systems in our few statements.
type Dialect struct {
	Name      string
	Numbered  bool   // $1, $2 … (PostgreSQL) instead of ?
	Quote     byte   // identifier quote: '"' or '`'
	KeyType   string // type of ycsb_key, chosen so ORDER BY is byte order
	ValueType string // type of the field columns; binary so any []byte round-trips
	Suffix    string // appended to CREATE TABLE (e.g. table options)
	Clear     string // empties a table: "TRUNCATE TABLE " or "DELETE FROM "
	MaxParams int    // bind parameters allowed in one statement (multi-row INSERT)
	// BatchRows, when set, caps the rows of one multi-row INSERT below what
	// MaxParams allows.
	BatchRows int
	// EmptyValue, when set, is bound instead of an empty (non-nil) value:
	// modernc.org/sqlite binds an empty []byte as NULL, which would read back
	// as a missing field, so SQLite gets an empty string.
	EmptyValue any
}

// Postgres is PostgreSQL's dialect. COLLATE "C" makes key order byte order
// whatever the database's locale.
func Postgres() Dialect {
	return Dialect{Name: "postgres", Numbered: true, Quote: '"',
		KeyType: `VARCHAR(255) COLLATE "C"`, ValueType: "BYTEA", Clear: "TRUNCATE ", MaxParams: 65535}
}

// MySQL is MySQL's and MariaDB's dialect. VARBINARY keys compare bytewise
// (the default collation would fold case and treat "a" and "A" as one key).
func MySQL() Dialect {
	return Dialect{Name: "mysql", Quote: '`',
		KeyType: "VARBINARY(255)", ValueType: "LONGBLOB", Clear: "TRUNCATE TABLE ", MaxParams: 65535}
}

// SQLite is SQLite's dialect: a rowid table plus the primary-key index.
// (WITHOUT ROWID keeps rows in the key's B-tree, but SQLite advises against
// it for rows over ~200 bytes; with YCSB's 1 KB rows it measured ~1.5x
// slower for both load and reads.) Identifiers are quoted with backquotes:
// SQLite takes a "double-quoted" name of a missing column for a string
// literal, which would hide a wrong table layout.
func SQLite() Dialect {
	// BatchRows: modernc.org/sqlite matches each parameter to its argument
	// by a linear search (quadratic in the parameter count), so a batch is
	// many short INSERTs in one transaction rather than one long one.
	return Dialect{Name: "sqlite", Quote: '`', EmptyValue: "", BatchRows: 16,
		KeyType: "VARCHAR(255)", ValueType: "BLOB", Clear: "DELETE FROM ", MaxParams: 32766}
}

// KeyColumn is the name of the primary-key column, as in YCSB's JDBC binding.
const KeyColumn = "ycsb_key"

// maxFields bounds fieldcount: far above any YCSB setup, low enough that a
// column set fits a small stack buffer.
const maxFields = 1024

// Layout is the list of field columns of the table.
type Layout struct {
	Fields []string // column names in table order
	index  map[string]int
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// NewLayout returns the layout prefix0 … prefix<count-1>, as YCSB names fields.
func NewLayout(count int, prefix string) (*Layout, error) {
	if count < 1 || count > maxFields {
		return nil, fmt.Errorf("field count %d: expected 1 to %d", count, maxFields)
	}
	if !identRe.MatchString(prefix) {
		return nil, fmt.Errorf("field name prefix %q: expected letters, digits and _ (an SQL identifier)", prefix)
	}
	l := &Layout{Fields: make([]string, count), index: make(map[string]int, count)}
	for i := range l.Fields {
		l.Fields[i] = prefix + strconv.Itoa(i)
		l.index[l.Fields[i]] = i
	}
	return l, nil
}

// LayoutFromProps reads YCSB's fieldcount (default 10) and fieldnameprefix
// (default "field"); the ycsb workload reads them too, so both agree.
func LayoutFromProps(p *spec.Props) (*Layout, error) {
	n, err := p.IntMin("fieldcount", 10, 1)
	if err != nil {
		return nil, err
	}
	if n > maxFields {
		return nil, p.Errorf("fieldcount", "an integer from 1 to %d", maxFields)
	}
	prefix := p.String("fieldnameprefix", "field")
	l, err := NewLayout(int(n), prefix)
	if err != nil {
		return nil, p.Errorf("fieldnameprefix", "letters, digits and _ (an SQL identifier)")
	}
	return l, nil
}

// Index returns the column position of a field name.
func (l *Layout) Index(name string) (int, bool) {
	i, ok := l.index[name]
	return i, ok
}

func (l *Layout) unknown(name string) error {
	return fmt.Errorf("unknown field %q: the table has %s … %s (properties fieldcount, fieldnameprefix)",
		name, l.Fields[0], l.Fields[len(l.Fields)-1])
}

// Kind is the kind of a statement.
type Kind byte

const (
	Read       Kind = iota + 1 // SELECT cols WHERE key = ?
	Scan                       // SELECT cols WHERE key >= ? ORDER BY key LIMIT ?
	Update                     // UPDATE SET cols WHERE key = ?
	Insert                     // INSERT one row, all columns
	InsertRows                 // INSERT n rows, all columns
	Delete                     // DELETE WHERE key = ?
)

// Stmt is one statement, immutable once built.
type Stmt struct {
	SQL string
	// Cols are the field positions it reads or writes, in SQL order
	// (Read, Scan, Update); nil for the others.
	Cols []int
	// Names are the field names of Cols.
	Names []string
	// Handle is what the driver's Prepare returned for SQL (e.g. *sql.Stmt).
	Handle any
}

// PrepareFunc turns the SQL of a new statement into a driver handle; kind
// tells reads (Read, Scan) from writes, for drivers with a pool for each.
type PrepareFunc func(ctx context.Context, kind Kind, sql string) (any, error)

// Table caches the statements of one table.
type Table struct {
	Name    string
	d       Dialect
	l       *Layout
	quoted  string
	prepare PrepareFunc

	mu    sync.Mutex                       // serializes building new statements
	stmts atomic.Pointer[map[string]*Stmt] // copy on write: lookups take no lock
}

// NewTable validates name and returns its statement cache. prepare may be nil.
func NewTable(d Dialect, l *Layout, name string, prepare PrepareFunc) (*Table, error) {
	if !identRe.MatchString(name) || len(name) > 63 {
		return nil, fmt.Errorf("table name %q: expected letters, digits and _ (at most 63)", name)
	}
	t := &Table{Name: name, d: d, l: l, quoted: d.quote(name), prepare: prepare}
	m := map[string]*Stmt{}
	t.stmts.Store(&m)
	return t, nil
}

// Layout returns the table's field columns.
func (t *Table) Layout() *Layout { return t.l }

func (d Dialect) quote(ident string) string {
	q := string(d.Quote)
	return q + ident + q
}

func (d Dialect) param(b *strings.Builder, i int) {
	if d.Numbered {
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(i))
	} else {
		b.WriteByte('?')
	}
}

// CreateSQL creates the table if it does not exist.
func (t *Table) CreateSQL() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (%s %s PRIMARY KEY", t.quoted, t.d.quote(KeyColumn), t.d.KeyType)
	for _, f := range t.l.Fields {
		fmt.Fprintf(&b, ", %s %s", t.d.quote(f), t.d.ValueType)
	}
	b.WriteString(")")
	b.WriteString(t.d.Suffix)
	return b.String()
}

// CheckSQL selects every expected column and no row: it fails when an
// existing table was created with another layout.
func (t *Table) CheckSQL() string {
	return "SELECT " + t.columnList(nil) + " FROM " + t.quoted + " WHERE 1 = 0"
}

// AnySQL selects 1 if the table holds a row, no row otherwise (Preloaded):
// the first row of the primary key, however large the table.
func (t *Table) AnySQL() string { return "SELECT 1 FROM " + t.quoted + " LIMIT 1" }

// ClearSQL deletes every row (Resetter).
func (t *Table) ClearSQL() string { return t.d.Clear + t.quoted }

// columnList writes the quoted names of cols (nil: key and all fields).
func (t *Table) columnList(cols []int) string {
	var b strings.Builder
	if cols == nil {
		b.WriteString(t.d.quote(KeyColumn))
		for _, f := range t.l.Fields {
			b.WriteString(", ")
			b.WriteString(t.d.quote(f))
		}
		return b.String()
	}
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.d.quote(t.l.Fields[c]))
	}
	return b.String()
}

// setKey is the cache key of a kind and a field set: the kind, then a bitmap
// of the fields. It is built in a caller's stack buffer; the map lookup with
// string(key) does not allocate.
func (t *Table) setKey(buf []byte, k Kind, fields []string) ([]byte, error) {
	n := (len(t.l.Fields) + 7) / 8
	buf = append(buf[:0], byte(k))
	for range n {
		buf = append(buf, 0)
	}
	if len(fields) == 0 { // nil (YCSB's "all fields"), and [] likewise
		for i := range t.l.Fields {
			buf[1+i/8] |= 1 << (i % 8)
		}
		return buf, nil
	}
	for _, f := range fields {
		i, ok := t.l.index[f]
		if !ok {
			return nil, t.l.unknown(f)
		}
		buf[1+i/8] |= 1 << (i % 8)
	}
	return buf, nil
}

func (t *Table) lookup(key []byte) *Stmt {
	return (*t.stmts.Load())[string(key)]
}

// get returns the cached statement for key, building (and preparing) it on
// the first use. A failed prepare is not cached, so it is retried.
func (t *Table) get(ctx context.Context, key []byte, build func() *Stmt) (*Stmt, error) {
	// key[0] is the Kind of every cache key.
	if s := t.lookup(key); s != nil {
		return s, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	old := *t.stmts.Load()
	if s := old[string(key)]; s != nil {
		return s, nil
	}
	s := build()
	if t.prepare != nil {
		h, err := t.prepare(ctx, Kind(key[0]), s.SQL)
		if err != nil {
			return nil, fmt.Errorf("prepare %s: %w", abbrev(s.SQL), err)
		}
		s.Handle = h
	}
	m := make(map[string]*Stmt, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[string(key)] = s
	t.stmts.Store(&m)
	return s, nil
}

// colsOf decodes the bitmap of a set key into field positions.
func (t *Table) colsOf(key []byte) ([]int, []string) {
	var cols []int
	var names []string
	for i := range t.l.Fields {
		if key[1+i/8]&(1<<(i%8)) != 0 {
			cols = append(cols, i)
			names = append(names, t.l.Fields[i])
		}
	}
	return cols, names
}

// ReadStmt selects fields (nil or empty: all) of one key: args (key).
func (t *Table) ReadStmt(ctx context.Context, fields []string) (*Stmt, error) {
	var buf [1 + maxFields/8]byte
	key, err := t.setKey(buf[:], Read, fields)
	if err != nil {
		return nil, err
	}
	return t.get(ctx, key, func() *Stmt {
		cols, names := t.colsOf(key)
		var b strings.Builder
		fmt.Fprintf(&b, "SELECT %s FROM %s WHERE %s = ", t.columnList(cols), t.quoted, t.d.quote(KeyColumn))
		t.d.param(&b, 1)
		return &Stmt{SQL: b.String(), Cols: cols, Names: names}
	})
}

// ScanStmt selects fields (nil: all) of up to n keys from a start key on, in
// key order: args (startKey, n).
func (t *Table) ScanStmt(ctx context.Context, fields []string) (*Stmt, error) {
	var buf [1 + maxFields/8]byte
	key, err := t.setKey(buf[:], Scan, fields)
	if err != nil {
		return nil, err
	}
	return t.get(ctx, key, func() *Stmt {
		cols, names := t.colsOf(key)
		kc := t.d.quote(KeyColumn)
		var b strings.Builder
		fmt.Fprintf(&b, "SELECT %s FROM %s WHERE %s >= ", t.columnList(cols), t.quoted, kc)
		t.d.param(&b, 1)
		fmt.Fprintf(&b, " ORDER BY %s LIMIT ", kc)
		t.d.param(&b, 2)
		return &Stmt{SQL: b.String(), Cols: cols, Names: names}
	})
}

// UpdateStmt sets the fields of values on one key; UpdateArgs binds it.
func (t *Table) UpdateStmt(ctx context.Context, values driver.Record) (*Stmt, error) {
	if len(values) == 0 {
		return nil, fmt.Errorf("update with no fields")
	}
	var buf [1 + maxFields/8]byte
	buf[0] = byte(Update)
	key := buf[:1+(len(t.l.Fields)+7)/8]
	for f := range values {
		i, ok := t.l.index[f]
		if !ok {
			return nil, t.l.unknown(f)
		}
		key[1+i/8] |= 1 << (i % 8)
	}
	return t.get(ctx, key, func() *Stmt {
		cols, names := t.colsOf(key)
		var b strings.Builder
		fmt.Fprintf(&b, "UPDATE %s SET ", t.quoted)
		for j, c := range cols {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(t.d.quote(t.l.Fields[c]))
			b.WriteString(" = ")
			t.d.param(&b, j+1)
		}
		fmt.Fprintf(&b, " WHERE %s = ", t.d.quote(KeyColumn))
		t.d.param(&b, len(cols)+1)
		return &Stmt{SQL: b.String(), Cols: cols, Names: names}
	})
}

// UpdateArgs appends the arguments of an UpdateStmt to args: the values in
// column order, then the key.
func (t *Table) UpdateArgs(s *Stmt, key string, values driver.Record, args []any) []any {
	for _, name := range s.Names {
		args = append(args, t.value(values[name]))
	}
	return append(args, key)
}

// value is what to bind for v.
func (t *Table) value(v []byte) any {
	if len(v) == 0 && v != nil && t.d.EmptyValue != nil {
		return t.d.EmptyValue
	}
	return v
}

// InsertStmt inserts one row with every column: args from InsertArgs.
func (t *Table) InsertStmt(ctx context.Context) (*Stmt, error) {
	return t.InsertRowsStmt(ctx, 1)
}

// MaxRows is how many rows one multi-row INSERT may hold within the
// dialect's bind-parameter limit (and BatchRows).
func (t *Table) MaxRows() int {
	n := t.d.MaxParams / (len(t.l.Fields) + 1)
	if t.d.BatchRows > 0 {
		n = min(n, t.d.BatchRows)
	}
	return n
}

// InsertRowsStmt inserts n rows with every column (n <= MaxRows).
func (t *Table) InsertRowsStmt(ctx context.Context, n int) (*Stmt, error) {
	if n < 1 || n > t.MaxRows() {
		return nil, fmt.Errorf("insert of %d rows: expected 1 to %d per statement", n, t.MaxRows())
	}
	var buf [1 + 8]byte
	buf[0] = byte(InsertRows)
	key := strconv.AppendInt(buf[:1], int64(n), 10)
	return t.get(ctx, key, func() *Stmt {
		var b strings.Builder
		width := len(t.l.Fields) + 1
		b.Grow(32 + n*width*6)
		fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", t.quoted, t.columnList(nil))
		p := 1
		for r := range n {
			if r > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			for c := range width {
				if c > 0 {
					b.WriteString(", ")
				}
				t.d.param(&b, p)
				p++
			}
			b.WriteByte(')')
		}
		return &Stmt{SQL: b.String()}
	})
}

// InsertArgs appends one row of an insert to args: the key, then every field
// in table order (NULL where values lacks it). It rejects unknown fields, so a
// typo does not silently drop data.
func (t *Table) InsertArgs(key string, values driver.Record, args []any) ([]any, error) {
	args = append(args, key)
	found := 0
	for _, f := range t.l.Fields {
		if v, ok := values[f]; ok {
			args = append(args, t.value(v))
			found++
		} else {
			args = append(args, nil)
		}
	}
	if found != len(values) {
		for f := range values {
			if _, ok := t.l.index[f]; !ok {
				return args, t.l.unknown(f)
			}
		}
	}
	return args, nil
}

// DeleteStmt deletes one key: args (key).
func (t *Table) DeleteStmt(ctx context.Context) (*Stmt, error) {
	key := [1]byte{byte(Delete)}
	return t.get(ctx, key[:], func() *Stmt {
		var b strings.Builder
		fmt.Fprintf(&b, "DELETE FROM %s WHERE %s = ", t.quoted, t.d.quote(KeyColumn))
		t.d.param(&b, 1)
		return &Stmt{SQL: b.String()}
	})
}

// Record builds the result of a Read or Scan from the scanned column values
// (in s.Cols order). NULL columns (nil) are left out: they were never written.
func Record(s *Stmt, vals [][]byte) driver.Record {
	r := make(driver.Record, len(vals))
	for i, v := range vals {
		if v != nil {
			r[s.Names[i]] = v
		}
	}
	return r
}

// Each calls fn for every statement built so far (e.g. to close handles).
func (t *Table) Each(fn func(*Stmt)) {
	for _, s := range *t.stmts.Load() {
		fn(s)
	}
}

// abbrev shortens SQL for error messages (a multi-row INSERT is long).
func abbrev(sql string) string {
	const max = 100
	if len(sql) <= max {
		return sql
	}
	return sql[:max] + "…"
}
