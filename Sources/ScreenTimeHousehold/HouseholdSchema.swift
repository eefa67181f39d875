import Logging
import PostgresNIO

/// The family database's schema (issue #20; docs/household.md), by numbered migrations, each applied
/// once in a transaction of its own. The ledger is append-only for the machines: their role may
/// read, and call `append_entry`, which decides and writes in one transaction; it has no INSERT,
/// UPDATE or DELETE on any table.
public enum HouseholdSchema {
    /// The role every machine's login role is a member of.
    public static let machineRole = "screentime_machine"

    /// Each migration: its statements, in order (one at a time: the extended protocol takes one each).
    public static let migrations: [(version: Int, statements: [String])] = [
        (1, [
            """
            CREATE TABLE screentime.children (
                child text PRIMARY KEY,
                balance bigint NOT NULL DEFAULT 0,
                entries bigint NOT NULL DEFAULT 0,
                head bytea NOT NULL DEFAULT ''::bytea
            )
            """,
            """
            CREATE TABLE screentime.ledger (
                child text NOT NULL REFERENCES screentime.children,
                seq bigint NOT NULL,
                machine text NOT NULL,
                origin text NOT NULL,
                kind text NOT NULL CHECK (kind IN ('earned', 'redeemed', 'adjusted', 'chore', 'bonus', 'gifted', 'expired')),
                points bigint NOT NULL,
                balance_after bigint NOT NULL,
                at_micros bigint NOT NULL,
                note text NOT NULL DEFAULT '',
                previous_hash bytea NOT NULL,
                hash bytea NOT NULL,
                PRIMARY KEY (child, seq),
                UNIQUE (machine, origin)
            )
            """,
            appendEntry(create: "CREATE", sameEntry: "l.machine = p_machine AND l.origin = p_origin"),
            """
            REVOKE ALL ON ALL TABLES IN SCHEMA screentime FROM PUBLIC
            """,
            """
            REVOKE ALL ON FUNCTION screentime.append_entry(text, text, text, text, bigint, bigint, text, bigint) FROM PUBLIC
            """,
            """
            GRANT USAGE ON SCHEMA screentime TO screentime_machine
            """,
            """
            GRANT SELECT ON screentime.children, screentime.ledger TO screentime_machine
            """,
            """
            GRANT EXECUTE ON FUNCTION screentime.append_entry(text, text, text, text, bigint, bigint, text, bigint) TO screentime_machine
            """,
        ]),
        (2, [
            """
            -- Game time leased to each machine, by day (days since 1970-01-01 in the policy's zone).
            CREATE TABLE screentime.game_time (
                child text NOT NULL REFERENCES screentime.children,
                day bigint NOT NULL,
                machine text NOT NULL,
                leased_micros bigint NOT NULL CHECK (leased_micros >= 0),
                PRIMARY KEY (child, day, machine)
            )
            """,
            """
            -- A lease of game time, decided and recorded at once: the child's row is locked, so that
            -- machines asking at once are answered one at a time, each from what the others took.
            CREATE FUNCTION screentime.take_lease(p_child text, p_machine text, p_day bigint, p_week_start bigint, p_want bigint,
                                                  p_day_limit bigint, p_week_limit bigint)
            RETURNS TABLE (granted bigint, day_total bigint, week_total bigint, reached text)
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = screentime, pg_temp AS $$
            DECLARE
                d bigint;
                w bigint;
                g bigint := greatest(p_want, 0);
                r text := NULL;
            BEGIN
                INSERT INTO screentime.children (child) VALUES (p_child) ON CONFLICT DO NOTHING;
                PERFORM 1 FROM screentime.children c WHERE c.child = p_child FOR UPDATE;
                SELECT coalesce(sum(t.leased_micros), 0) INTO d FROM screentime.game_time t WHERE t.child = p_child AND t.day = p_day;
                SELECT coalesce(sum(t.leased_micros), 0) INTO w FROM screentime.game_time t
                    WHERE t.child = p_child AND t.day BETWEEN p_week_start AND p_day;
                IF p_day_limit IS NOT NULL AND p_day_limit - d <= g THEN g := greatest(p_day_limit - d, 0); r := 'daily_limit'; END IF;
                IF p_week_limit IS NOT NULL AND p_week_limit - w <= g THEN g := greatest(p_week_limit - w, 0); r := 'weekly_limit'; END IF;
                IF g > 0 THEN
                    INSERT INTO screentime.game_time AS t VALUES (p_child, p_day, p_machine, g)
                    ON CONFLICT (child, day, machine) DO UPDATE SET leased_micros = t.leased_micros + EXCLUDED.leased_micros;
                END IF;
                RETURN QUERY SELECT g, d + g, w + g, r;
            END $$
            """,
            """
            REVOKE ALL ON screentime.game_time FROM PUBLIC
            """,
            """
            REVOKE ALL ON FUNCTION screentime.take_lease(text, text, bigint, bigint, bigint, bigint, bigint) FROM PUBLIC
            """,
            """
            GRANT SELECT ON screentime.game_time TO screentime_machine
            """,
            """
            GRANT EXECUTE ON FUNCTION screentime.take_lease(text, text, bigint, bigint, bigint, bigint, bigint) TO screentime_machine
            """,
        ]),
        (3, [
            """
            -- Game time of each limited app and group (scope: app:NAME, group:NAME) each machine
            -- played, by day: shared so that an app's limit holds over the child's machines.
            CREATE TABLE screentime.app_time (
                child text NOT NULL REFERENCES screentime.children,
                day bigint NOT NULL,
                machine text NOT NULL,
                scope text NOT NULL,
                used_micros bigint NOT NULL CHECK (used_micros >= 0),
                PRIMARY KEY (child, day, machine, scope)
            )
            """,
            """
            -- A machine's game time of its scopes today (it only grows), and the others' of every
            -- scope, that day and that week up to it.
            CREATE FUNCTION screentime.share_app_time(p_child text, p_machine text, p_day bigint, p_week_start bigint,
                                                      p_scopes text[], p_used bigint[])
            RETURNS TABLE (app_scope text, others_today bigint, others_week bigint)
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = screentime, pg_temp AS $$
            BEGIN
                INSERT INTO screentime.children (child) VALUES (p_child) ON CONFLICT DO NOTHING;
                INSERT INTO screentime.app_time AS a
                    SELECT p_child, p_day, p_machine, s.scope, greatest(s.used, 0) FROM unnest(p_scopes, p_used) AS s(scope, used)
                ON CONFLICT (child, day, machine, scope) DO UPDATE SET used_micros = greatest(a.used_micros, EXCLUDED.used_micros);
                RETURN QUERY
                    SELECT a.scope, coalesce(sum(a.used_micros) FILTER (WHERE a.day = p_day), 0)::bigint, sum(a.used_micros)::bigint
                    FROM screentime.app_time a
                    WHERE a.child = p_child AND a.machine <> p_machine AND a.day BETWEEN p_week_start AND p_day
                    GROUP BY a.scope ORDER BY a.scope;
            END $$
            """,
            """
            REVOKE ALL ON screentime.app_time FROM PUBLIC
            """,
            """
            REVOKE ALL ON FUNCTION screentime.share_app_time(text, text, bigint, bigint, text[], bigint[]) FROM PUBLIC
            """,
            """
            GRANT SELECT ON screentime.app_time TO screentime_machine
            """,
            """
            GRANT EXECUTE ON FUNCTION screentime.share_app_time(text, text, bigint, bigint, text[], bigint[]) TO screentime_machine
            """,
        ]),
        (4, [
            // A parent's bonus time for today, and minutes taken back (issue 35).
            """
            ALTER TABLE screentime.ledger DROP CONSTRAINT ledger_kind_check
            """,
            """
            ALTER TABLE screentime.ledger ADD CONSTRAINT ledger_kind_check
                CHECK (kind IN ('earned', 'redeemed', 'adjusted', 'chore', 'bonus', 'gifted', 'expired', 'bonus_time', 'revoked'))
            """,
        ]),
        (5, [
            // The machine is the role that logged in (issue 36): a computer's role could write
            // entries, leases and app time in another computer's name when the functions took the
            // machine as an argument. `session_user` is the login role, whatever role a
            // SECURITY DEFINER function runs as, and no SET ROLE changes it.
            """
            CREATE FUNCTION screentime.append_entry(p_child text, p_origin text, p_kind text, p_points bigint,
                                                    p_at_micros bigint, p_note text, p_floor bigint)
            RETURNS TABLE (outcome text, seq bigint, balance_after bigint, hash bytea)
            LANGUAGE sql SECURITY DEFINER SET search_path = screentime, pg_temp AS $$
                SELECT * FROM screentime.append_entry(p_child, session_user::text, p_origin, p_kind, p_points, p_at_micros, p_note, p_floor)
            $$
            """,
            """
            CREATE FUNCTION screentime.take_lease(p_child text, p_day bigint, p_week_start bigint, p_want bigint,
                                                  p_day_limit bigint, p_week_limit bigint)
            RETURNS TABLE (granted bigint, day_total bigint, week_total bigint, reached text)
            LANGUAGE sql SECURITY DEFINER SET search_path = screentime, pg_temp AS $$
                SELECT * FROM screentime.take_lease(p_child, session_user::text, p_day, p_week_start, p_want, p_day_limit, p_week_limit)
            $$
            """,
            """
            CREATE FUNCTION screentime.share_app_time(p_child text, p_day bigint, p_week_start bigint, p_scopes text[], p_used bigint[])
            RETURNS TABLE (app_scope text, others_today bigint, others_week bigint)
            LANGUAGE sql SECURITY DEFINER SET search_path = screentime, pg_temp AS $$
                SELECT * FROM screentime.share_app_time(p_child, session_user::text, p_day, p_week_start, p_scopes, p_used)
            $$
            """,
            // The functions that take the machine stay, for these to call; no machine may call them.
            """
            REVOKE ALL ON FUNCTION screentime.append_entry(text, text, text, text, bigint, bigint, text, bigint) FROM screentime_machine
            """,
            """
            REVOKE ALL ON FUNCTION screentime.take_lease(text, text, bigint, bigint, bigint, bigint, bigint) FROM screentime_machine
            """,
            """
            REVOKE ALL ON FUNCTION screentime.share_app_time(text, text, bigint, bigint, text[], bigint[]) FROM screentime_machine
            """,
            """
            REVOKE ALL ON FUNCTION screentime.append_entry(text, text, text, bigint, bigint, text, bigint) FROM PUBLIC
            """,
            """
            REVOKE ALL ON FUNCTION screentime.take_lease(text, bigint, bigint, bigint, bigint, bigint) FROM PUBLIC
            """,
            """
            REVOKE ALL ON FUNCTION screentime.share_app_time(text, bigint, bigint, text[], bigint[]) FROM PUBLIC
            """,
            """
            GRANT EXECUTE ON FUNCTION screentime.append_entry(text, text, text, bigint, bigint, text, bigint) TO screentime_machine
            """,
            """
            GRANT EXECUTE ON FUNCTION screentime.take_lease(text, bigint, bigint, bigint, bigint, bigint) TO screentime_machine
            """,
            """
            GRANT EXECUTE ON FUNCTION screentime.share_app_time(text, bigint, bigint, text[], bigint[]) TO screentime_machine
            """,
        ]),
        (6, [
            """
            -- Screen time leased to each machine, by day (issue 38): as game time, in a table of its own.
            CREATE TABLE screentime.screen_time (
                child text NOT NULL REFERENCES screentime.children,
                day bigint NOT NULL,
                machine text NOT NULL,
                leased_micros bigint NOT NULL CHECK (leased_micros >= 0),
                PRIMARY KEY (child, day, machine)
            )
            """,
            """
            -- A lease of screen time, decided and recorded at once, under the child's row lock as a
            -- lease of game time. The machine is the login role; no machine may name another.
            CREATE FUNCTION screentime.take_screen_lease(p_child text, p_day bigint, p_week_start bigint, p_want bigint,
                                                         p_day_limit bigint, p_week_limit bigint)
            RETURNS TABLE (granted bigint, day_total bigint, week_total bigint, reached text)
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = screentime, pg_temp AS $$
            DECLARE
                d bigint;
                w bigint;
                g bigint := greatest(p_want, 0);
                r text := NULL;
            BEGIN
                INSERT INTO screentime.children (child) VALUES (p_child) ON CONFLICT DO NOTHING;
                PERFORM 1 FROM screentime.children c WHERE c.child = p_child FOR UPDATE;
                SELECT coalesce(sum(t.leased_micros), 0) INTO d FROM screentime.screen_time t WHERE t.child = p_child AND t.day = p_day;
                SELECT coalesce(sum(t.leased_micros), 0) INTO w FROM screentime.screen_time t
                    WHERE t.child = p_child AND t.day BETWEEN p_week_start AND p_day;
                IF p_day_limit IS NOT NULL AND p_day_limit - d <= g THEN g := greatest(p_day_limit - d, 0); r := 'daily_limit'; END IF;
                IF p_week_limit IS NOT NULL AND p_week_limit - w <= g THEN g := greatest(p_week_limit - w, 0); r := 'weekly_limit'; END IF;
                IF g > 0 THEN
                    INSERT INTO screentime.screen_time AS t VALUES (p_child, p_day, session_user::text, g)
                    ON CONFLICT (child, day, machine) DO UPDATE SET leased_micros = t.leased_micros + EXCLUDED.leased_micros;
                END IF;
                RETURN QUERY SELECT g, d + g, w + g, r;
            END $$
            """,
            """
            REVOKE ALL ON screentime.screen_time FROM PUBLIC
            """,
            """
            REVOKE ALL ON FUNCTION screentime.take_screen_lease(text, bigint, bigint, bigint, bigint, bigint) FROM PUBLIC
            """,
            """
            GRANT SELECT ON screentime.screen_time TO screentime_machine
            """,
            """
            GRANT EXECUTE ON FUNCTION screentime.take_screen_lease(text, bigint, bigint, bigint, bigint, bigint) TO screentime_machine
            """,
        ]),
        (7, [
            // An entry is the one sent before only for the same child too (issue 42): the key was
            // (machine, origin), and a second child's entry with an origin another child's had on
            // the same computer was answered "duplicate" and never written. Replacing the function
            // keeps its owner and grants.
            """
            ALTER TABLE screentime.ledger DROP CONSTRAINT ledger_machine_origin_key
            """,
            """
            ALTER TABLE screentime.ledger ADD CONSTRAINT ledger_child_machine_origin_key UNIQUE (child, machine, origin)
            """,
            appendEntry(create: "CREATE OR REPLACE", sameEntry: "l.child = p_child AND l.machine = p_machine AND l.origin = p_origin"),
        ]),
    ]

    /// The function that appends an entry (migration 1's, and migration 7's with the child in
    /// what makes an entry the one sent before): `sameEntry` is that condition on the ledger `l`.
    static func appendEntry(create: String, sameEntry: String) -> String {
        """
        -- One entry, decided and written at once: the child's row is locked, so entries of one
        -- child are appended one at a time from every machine. An entry sent again (same machine,
        -- same origin) is answered as it was written; a spending that would take the balance
        -- below the floor is refused and writes nothing.
        \(create) FUNCTION screentime.append_entry(p_child text, p_machine text, p_origin text, p_kind text, p_points bigint,
                                                p_at_micros bigint, p_note text, p_floor bigint)
        RETURNS TABLE (outcome text, seq bigint, balance_after bigint, hash bytea)
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = screentime, pg_temp AS $$
        DECLARE
            c screentime.children%ROWTYPE;
            earlier screentime.ledger%ROWTYPE;
            v_after bigint;
            h bytea;
        BEGIN
            INSERT INTO screentime.children (child) VALUES (p_child) ON CONFLICT DO NOTHING;
            SELECT * INTO c FROM screentime.children WHERE child = p_child FOR UPDATE;
            SELECT * INTO earlier FROM screentime.ledger l WHERE \(sameEntry);
            IF FOUND THEN
                RETURN QUERY SELECT 'duplicate'::text, earlier.seq, earlier.balance_after, earlier.hash;
                RETURN;
            END IF;
            v_after := c.balance + p_points;
            IF p_floor IS NOT NULL AND p_points < 0 AND v_after < p_floor THEN
                RETURN QUERY SELECT 'refused'::text, c.entries, c.balance, c.head;
                RETURN;
            END IF;
            h := sha256(c.head || convert_to(concat_ws('|', p_child, c.entries + 1, p_machine, p_origin, p_kind, p_points, v_after,
                                                       p_at_micros, coalesce(p_note, '')), 'UTF8'));
            INSERT INTO screentime.ledger VALUES (p_child, c.entries + 1, p_machine, p_origin, p_kind, p_points, v_after, p_at_micros,
                                                  coalesce(p_note, ''), c.head, h);
            UPDATE screentime.children SET balance = v_after, entries = c.entries + 1, head = h WHERE child = p_child;
            RETURN QUERY SELECT 'appended'::text, c.entries + 1, v_after, h;
        END $$
        """
    }

    /// Brings the database to the newest schema (as its owner: the family's administrator, not a
    /// machine). Safe to run from several places at once: an advisory lock takes them in turn.
    /// `through`: no further than that version (the tests' older databases).
    public static func migrate(_ client: PostgresClient, through: Int? = nil, logger: Logger) async throws -> [Int] {
        try await client.withTransaction(logger: logger) { db in
            try await db.query("SELECT pg_advisory_xact_lock(20211126)", logger: logger)
            try await db.query("CREATE SCHEMA IF NOT EXISTS screentime", logger: logger)
            try await db.query("REVOKE ALL ON SCHEMA screentime FROM PUBLIC", logger: logger)
            // Making the machines' role needs CREATEROLE (docs/household.md: the administrator is
            // made with --createrole); said in a parent's words when it is missing.
            try await db.query("""
                DO $$ BEGIN
                    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'screentime_machine') THEN
                        IF NOT (SELECT rolcreaterole OR rolsuper FROM pg_roles WHERE rolname = current_user) THEN
                            RAISE EXCEPTION 'the role % may not create roles, and the family database needs one (screentime_machine)', current_user
                                USING HINT = 'make the administrator with: sudo -u postgres createuser --createrole --pwprompt ' || current_user
                                             || ' (or: ALTER ROLE ' || current_user || ' CREATEROLE), then run setup again';
                        END IF;
                        CREATE ROLE screentime_machine NOLOGIN;
                    END IF;
                END $$
                """, logger: logger)
            try await db.query("CREATE TABLE IF NOT EXISTS screentime.migrations (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                               logger: logger)
            var applied: Set<Int> = []
            for try await v in try await db.query("SELECT version FROM screentime.migrations", logger: logger).decode(Int.self) { applied.insert(v) }
            var done: [Int] = []
            for m in migrations where !applied.contains(m.version) && m.version <= (through ?? Int.max) {
                for statement in m.statements { try await db.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await db.query("INSERT INTO screentime.migrations (version) VALUES (\(m.version))", logger: logger)
                done.append(m.version)
            }
            return done
        }
    }
}
