package store

// Coordination of several load generators through the results store, and
// nothing else: no protocol of fairbench's own between machines. A
// coordinator opens a session, publishes each cell it wants measured on
// several generators, and merges the partial runs they write back; the
// generators register, poll for cells, say when they are ready, and wait for
// the start time the coordinator wrote. Every time in these tables is the
// store's clock (the PostgreSQL server's; this machine's for a results file),
// so that machines whose clocks differ agree on "now": each process measures
// its offset to that clock (Clock) and converts.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// Session states, cell states and part states as stored.
const (
	SessionOpen      = "open"
	SessionDone      = "done"
	SessionAbandoned = "abandoned" // a newer session of the same study replaced it

	CellAssigned = "assigned" // generators connect and say they are ready
	CellStarted  = "started"  // start_at is set
	CellMerged   = "merged"
	CellFailed   = "failed"

	PartReady  = "ready"
	PartDone   = "done"
	PartFailed = "failed"
)

// ClockSample is this process's clock against the store's: the store's time
// is local time + Offset, known to within RTT/2.
type ClockSample struct {
	Offset, RTT time.Duration
}

// Now returns the store's time now, as this process estimates it.
func (c ClockSample) Now() time.Time { return time.Now().Add(c.Offset) }

// Local converts a time on the store's clock to this process's clock.
func (c ClockSample) Local(storeTime time.Time) time.Time { return storeTime.Add(-c.Offset) }

// serverTime reads the store's clock: PostgreSQL's clock_timestamp() (the
// time of the call, not of the transaction), or this machine's for a file.
func (s *Store) serverTime(ctx context.Context) (time.Time, error) {
	if s.pg == nil {
		return time.Now(), nil
	}
	var t time.Time
	err := s.db.QueryRowContext(ctx, "SELECT clock_timestamp()").Scan(&t)
	return t, err
}

// Clock measures this process's offset to the store's clock, NTP's way: of
// several round trips, the one with the shortest RTT, whose reading is
// taken to be from its middle.
func (s *Store) Clock(ctx context.Context) (ClockSample, error) {
	best := ClockSample{RTT: -1}
	for range 9 {
		t0 := time.Now()
		srv, err := s.serverTime(ctx)
		if err != nil {
			return ClockSample{}, fmt.Errorf("reading the clock of the results store %s: %w", s.path, err)
		}
		rtt := time.Since(t0)
		if best.RTT < 0 || rtt < best.RTT {
			best = ClockSample{Offset: srv.Sub(t0.Add(rtt / 2)), RTT: rtt}
		}
	}
	// PostgreSQL's clock has microseconds: an offset below that is noise.
	best.Offset = best.Offset.Round(time.Microsecond)
	return best, nil
}

// Session is a coordinator's session as a generator finds it.
type Session struct {
	ID         int64
	StudyHash  string
	StudyName  string
	Seed       uint64
	Generators int
	Status     string
	SeenAt     time.Time // the coordinator's last heartbeat, store clock
}

// OpenSession starts a coordinator's session for a study run on generators
// load generators. Open sessions of the same study are marked abandoned
// first: generators that look for the study join the newest coordinator,
// never one that died.
func (s *Store) OpenSession(ctx context.Context, studyHash, studyName string, seed uint64, generators int, now time.Time) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("opening a coordination session: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, s.q("UPDATE coord_sessions SET status = ?, ended_at = ? WHERE study_hash = ? AND status = ?"),
		SessionAbandoned, formatTime(now), studyHash, SessionOpen); err != nil {
		return 0, fmt.Errorf("closing older coordination sessions: %w", err)
	}
	var id int64
	err = tx.QueryRowContext(ctx, s.q("INSERT INTO coord_sessions (study_hash, study_name, seed, generators, status, created_at, seen_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id"),
		studyHash, studyName, strconv.FormatUint(seed, 10), generators, SessionOpen, formatTime(now), formatTime(now)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("opening a coordination session: %w", err)
	}
	return id, tx.Commit()
}

// SessionHeartbeat says the coordinator of session id is alive at now
// (store clock): generators give up on a session whose coordinator stopped.
func (s *Store) SessionHeartbeat(ctx context.Context, id int64, now time.Time) error {
	_, err := s.db.ExecContext(ctx, s.q("UPDATE coord_sessions SET seen_at = ? WHERE id = ?"), formatTime(now), id)
	return err
}

// EndSession closes a coordinator's session: its generators then exit.
func (s *Store) EndSession(ctx context.Context, id int64, status string, now time.Time) error {
	_, err := s.db.ExecContext(ctx, s.q("UPDATE coord_sessions SET status = ?, ended_at = ? WHERE id = ?"), status, formatTime(now), id)
	if err != nil {
		return fmt.Errorf("closing coordination session %d: %w", id, err)
	}
	return nil
}

// FindSession returns the session id names (id > 0), or else the newest
// open session of the study with studyHash (of any study when studyHash is
// ""); ok is false when there is none.
func (s *Store) FindSession(ctx context.Context, id int64, studyHash string) (Session, bool, error) {
	query := "SELECT id, study_hash, study_name, seed, generators, status, seen_at FROM coord_sessions WHERE "
	var args []any
	if id > 0 {
		query += "id = ?"
		args = append(args, id)
	} else {
		query += "status = ?"
		args = append(args, SessionOpen)
		if studyHash != "" {
			query += " AND study_hash = ?"
			args = append(args, studyHash)
		}
		query += " ORDER BY id DESC LIMIT 1"
	}
	var ss Session
	var seed string
	var seen sql.NullString
	err := s.db.QueryRowContext(ctx, s.q(query), args...).Scan(&ss.ID, &ss.StudyHash, &ss.StudyName, &seed, &ss.Generators, &ss.Status, &seen)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, false, nil
	}
	if err != nil {
		return Session{}, false, fmt.Errorf("looking for a coordination session: %w", err)
	}
	ss.Seed, _ = strconv.ParseUint(seed, 10, 64)
	ss.SeenAt, _ = parseTime(seen)
	return ss, true, nil
}

// Generator is one load generator of a session as registered.
type Generator struct {
	Index        int
	Host         string
	PID          int
	RegisteredAt time.Time
	SeenAt       time.Time // its last heartbeat, on the store's clock
	Clock        ClockSample
}

// Register enters generator index into session sid, or renews its entry (a
// restarted pod registers again under its number).
func (s *Store) Register(ctx context.Context, sid int64, g Generator) error {
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO coord_generators (session_id, generator, host, pid, registered_at, seen_at, clock_offset_ns, clock_rtt_ns)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (session_id, generator) DO UPDATE SET host = excluded.host, pid = excluded.pid, registered_at = excluded.registered_at,
seen_at = excluded.seen_at, clock_offset_ns = excluded.clock_offset_ns, clock_rtt_ns = excluded.clock_rtt_ns`),
		sid, g.Index, g.Host, g.PID, formatTime(g.RegisteredAt), formatTime(g.SeenAt), int64(g.Clock.Offset), int64(g.Clock.RTT))
	if err != nil {
		return fmt.Errorf("registering load generator %d: %w", g.Index, err)
	}
	return nil
}

// Heartbeat says generator index of session sid is alive at now (store clock).
func (s *Store) Heartbeat(ctx context.Context, sid int64, index int, now time.Time) error {
	_, err := s.db.ExecContext(ctx, s.q("UPDATE coord_generators SET seen_at = ? WHERE session_id = ? AND generator = ?"), formatTime(now), sid, index)
	return err
}

// Generators lists the generators registered in session sid, by number.
func (s *Store) Generators(ctx context.Context, sid int64) ([]Generator, error) {
	rows, err := s.db.QueryContext(ctx, s.q("SELECT generator, host, pid, registered_at, seen_at, clock_offset_ns, clock_rtt_ns FROM coord_generators WHERE session_id = ? ORDER BY generator"), sid)
	if err != nil {
		return nil, fmt.Errorf("listing load generators: %w", err)
	}
	defer rows.Close()
	var out []Generator
	for rows.Next() {
		var g Generator
		var reg, seen sql.NullString
		var off, rtt int64
		if err := rows.Scan(&g.Index, &g.Host, &g.PID, &reg, &seen, &off, &rtt); err != nil {
			return nil, err
		}
		g.RegisteredAt, _ = parseTime(reg)
		g.SeenAt, _ = parseTime(seen)
		g.Clock = ClockSample{Offset: time.Duration(off), RTT: time.Duration(rtt)}
		out = append(out, g)
	}
	return out, rows.Err()
}

// CoordCell is a cell a coordinator published.
type CoordCell struct {
	Seq     int
	CellKey string
	Status  string
	StartAt time.Time // store clock; zero until CellStarted
	RunID   int64
	Error   string
}

// PublishCell publishes cell number seq of session sid for its generators.
func (s *Store) PublishCell(ctx context.Context, sid int64, seq int, cellKey string) error {
	_, err := s.db.ExecContext(ctx, s.q("INSERT INTO coord_cells (session_id, seq, cell_key, status, error) VALUES (?, ?, ?, ?, '')"), sid, seq, cellKey, CellAssigned)
	if err != nil {
		return fmt.Errorf("publishing cell %s: %w", cellKey, err)
	}
	return nil
}

// StartCell sets the cell's start time (store clock).
func (s *Store) StartCell(ctx context.Context, sid int64, seq int, at time.Time) error {
	_, err := s.db.ExecContext(ctx, s.q("UPDATE coord_cells SET status = ?, start_at = ? WHERE session_id = ? AND seq = ?"), CellStarted, formatTime(at), sid, seq)
	if err != nil {
		return fmt.Errorf("publishing the start of cell %d: %w", seq, err)
	}
	return nil
}

// EndCell records how the cell ended: merged into run runID, or failed.
func (s *Store) EndCell(ctx context.Context, sid int64, seq int, status string, runID int64, why string) error {
	var id any
	if runID > 0 {
		id = runID
	}
	_, err := s.db.ExecContext(ctx, s.q("UPDATE coord_cells SET status = ?, run_id = ?, error = ? WHERE session_id = ? AND seq = ?"), status, id, s.errorText(why), sid, seq)
	if err != nil {
		return fmt.Errorf("recording the end of cell %d: %w", seq, err)
	}
	return nil
}

// NextCell returns the first cell of session sid after seq after, if any.
func (s *Store) NextCell(ctx context.Context, sid int64, after int) (CoordCell, bool, error) {
	return s.cell(ctx, "session_id = ? AND seq > ? ORDER BY seq LIMIT 1", sid, after)
}

// Cell returns cell seq of session sid.
func (s *Store) Cell(ctx context.Context, sid int64, seq int) (CoordCell, bool, error) {
	return s.cell(ctx, "session_id = ? AND seq = ?", sid, seq)
}

func (s *Store) cell(ctx context.Context, where string, args ...any) (CoordCell, bool, error) {
	var c CoordCell
	var start sql.NullString
	var run sql.NullInt64
	err := s.db.QueryRowContext(ctx, s.q("SELECT seq, cell_key, status, start_at, run_id, error FROM coord_cells WHERE "+where), args...).
		Scan(&c.Seq, &c.CellKey, &c.Status, &start, &run, &c.Error)
	if errors.Is(err, sql.ErrNoRows) {
		return CoordCell{}, false, nil
	}
	if err != nil {
		return CoordCell{}, false, fmt.Errorf("reading published cells: %w", err)
	}
	if c.StartAt, err = parseTime(start); err != nil {
		return CoordCell{}, false, err
	}
	c.RunID = run.Int64
	return c, true, nil
}

// Part is one generator's share of a published cell.
type Part struct {
	Generator int         `json:"generator"`
	Status    string      `json:"status"`
	Run       *result.Run `json:"run,omitempty"` // nil until PartDone (or a failed part that measured)
	Error     string      `json:"error,omitempty"`
	UpdatedAt time.Time   `json:"updated_at"`
	// Progress is the generator's latest progress readings while it
	// measures (SetPartProgress), oldest first; nil once the part is done.
	// Only PartProgress reads it.
	Progress []PartTick `json:"progress,omitempty"`
}

// PartTick is one progress reading of a load generator's part: the Slot-th
// reading of its warm-up or measured phase, which every generator takes at
// the same offset from the cell's agreed start, so that the coordinator
// adds up the generators' readings of one slot into the cell's.
type PartTick struct {
	Slot    int                `json:"slot"`
	Warmup  bool               `json:"warmup,omitempty"`
	Elapsed time.Duration      `json:"elapsed_ns"`
	Window  time.Duration      `json:"window_ns"`
	Point   result.SeriesPoint `json:"point"`
}

// MaxPartTicks is how many readings SetPartProgress keeps per part: the
// coordinator polls several times a second, so a few cover a late poll,
// and the row's size stays bounded however long the part measures.
const MaxPartTicks = 5

// SetPartProgress records generator index's latest progress readings of
// cell seq (at most MaxPartTicks, the newest kept). The part's status
// stays what SetPart made it.
func (s *Store) SetPartProgress(ctx context.Context, sid int64, seq, index int, ticks []PartTick, now time.Time) error {
	if len(ticks) > MaxPartTicks {
		ticks = ticks[len(ticks)-MaxPartTicks:]
	}
	for i := range ticks {
		ticks[i].Point = finitePoint(ticks[i].Point)
	}
	b, err := json.Marshal(ticks)
	if err != nil {
		return fmt.Errorf("encoding the progress of load generator %d: %w", index, err)
	}
	_, err = s.db.ExecContext(ctx, s.q(`UPDATE coord_parts SET progress = ?, updated_at = ? WHERE session_id = ? AND seq = ? AND generator = ?`),
		string(b), formatTime(now), sid, seq, index)
	if err != nil {
		return fmt.Errorf("storing the progress of load generator %d: %w", index, err)
	}
	return nil
}

// SetPart records generator index's state for cell seq, with its partial
// run when it has one. The run is kept as JSON beside the merged run, for
// inspection; it never appears among the store's runs.
func (s *Store) SetPart(ctx context.Context, sid int64, seq, index int, status string, run *result.Run, why string, now time.Time) error {
	var body any
	if run != nil {
		r := *run
		r.Summary = finiteSummary(r.Summary)
		r.Params = finiteValues(r.Params)
		b, err := json.Marshal(&r)
		if err != nil {
			return fmt.Errorf("encoding the partial run of load generator %d: %w", index, err)
		}
		body = string(b)
	}
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO coord_parts (session_id, seq, generator, status, run, error, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (session_id, seq, generator) DO UPDATE SET status = excluded.status, run = excluded.run, error = excluded.error, updated_at = excluded.updated_at,
	progress = CASE WHEN excluded.status = '`+PartReady+`' THEN coord_parts.progress END`),
		sid, seq, index, status, body, s.errorText(why), formatTime(now))
	if err != nil {
		return fmt.Errorf("storing the part of load generator %d: %w", index, err)
	}
	return nil
}

// Parts returns the parts written for cell seq of session sid, by generator.
func (s *Store) Parts(ctx context.Context, sid int64, seq int) ([]Part, error) {
	rows, err := s.db.QueryContext(ctx, s.q("SELECT generator, status, run, error, updated_at FROM coord_parts WHERE session_id = ? AND seq = ? ORDER BY generator"), sid, seq)
	if err != nil {
		return nil, fmt.Errorf("reading partial runs: %w", err)
	}
	defer rows.Close()
	var out []Part
	for rows.Next() {
		var p Part
		var body, at sql.NullString
		if err := rows.Scan(&p.Generator, &p.Status, &body, &p.Error, &at); err != nil {
			return nil, err
		}
		p.UpdatedAt, _ = parseTime(at)
		if body.Valid {
			p.Run = &result.Run{}
			if err := json.Unmarshal([]byte(body.String), p.Run); err != nil {
				return nil, fmt.Errorf("the partial run of load generator %d does not decode: %w", p.Generator, err)
			}
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PartProgress returns the parts of cell seq with their generators'
// latest progress readings (Part.Generator, Status and Progress only), by
// generator: what the coordinator and k8s run add up, read apart from the
// parts' runs and at most once a second, so that many generators' readings
// cost the store little.
func (s *Store) PartProgress(ctx context.Context, sid int64, seq int) ([]Part, error) {
	rows, err := s.db.QueryContext(ctx, s.q("SELECT generator, status, progress FROM coord_parts WHERE session_id = ? AND seq = ? ORDER BY generator"), sid, seq)
	if err != nil {
		return nil, fmt.Errorf("reading the load generators' progress: %w", err)
	}
	defer rows.Close()
	var out []Part
	for rows.Next() {
		var p Part
		var progress sql.NullString
		if err := rows.Scan(&p.Generator, &p.Status, &progress); err != nil {
			return nil, err
		}
		// The progress is for watching: one that does not decode is
		// left out, never a reason to fail the cell.
		if progress.Valid && json.Unmarshal([]byte(progress.String), &p.Progress) != nil {
			p.Progress = nil
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PartsOfRun returns the partial runs the load generators stored for the
// cell whose merged (or failed) run is runID: what each generator measured,
// kept for inspection. ok is false for a run of one process.
func (s *Store) PartsOfRun(ctx context.Context, runID int64) (parts []Part, ok bool, err error) {
	var sid int64
	var seq int
	err = s.db.QueryRowContext(ctx, s.q("SELECT session_id, seq FROM coord_cells WHERE run_id = ?"), runID).Scan(&sid, &seq)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("looking up the load generators of run %d: %w", runID, err)
	}
	parts, err = s.Parts(ctx, sid, seq)
	return parts, err == nil, err
}
