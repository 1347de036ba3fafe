/// What `tweetcli admin setup` makes in a database for many people: the accounts' tables, which
/// only the owner reads, and the functions through which a signed-out client (the guest role)
/// registers and finds the role to sign in as, and a signed-in one opens, closes and re-keys its
/// devices.
///
/// Every account is a role (`PREFIX_u_UID`, LOGIN, its password a SCRAM verifier the client made)
/// in the group `PREFIX_users`; every device that signs in is a role of its own
/// (`PREFIX_d_RANDOM`, LOGIN, a random password the device keeps in its session file) in its
/// account's role. The server knows who acts from `session_user`, which no client can change.
enum PostgresAccountsSQL {
    /// SQLSTATEs the functions raise, in a class of their own.
    static let usernameTaken = "TW001"
    static let emailTaken = "TW002"
    static let refusedField = "TW003"
    static let notAnAccount = "TW004"
    static let invalidCredentials = "TW005"

    static let tables = [
        """
        CREATE TABLE IF NOT EXISTS tweetcli_setup (
          id integer PRIMARY KEY CHECK (id = 1), prefix text NOT NULL, secret text NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS tweetcli_accounts (
          uid text COLLATE "C" PRIMARY KEY, role text NOT NULL UNIQUE,
          username text COLLATE "C" NOT NULL UNIQUE, email text COLLATE "C" NOT NULL UNIQUE)
        """,
        """
        CREATE TABLE IF NOT EXISTS tweetcli_devices (
          role text PRIMARY KEY, uid text COLLATE "C" NOT NULL REFERENCES tweetcli_accounts ON DELETE CASCADE,
          session text COLLATE "C" NOT NULL, created timestamptz NOT NULL DEFAULT now())
        """,
        "CREATE TABLE IF NOT EXISTS tweetcli_closed_devices (role text PRIMARY KEY)",
        // The emails of accounts made before the set-up, taken out of their public documents.
        "CREATE TABLE IF NOT EXISTS tweetcli_reserved_emails (email text COLLATE \"C\" PRIMARY KEY, uid text NOT NULL)",
        """
        REVOKE ALL ON tweetcli_setup, tweetcli_accounts, tweetcli_devices, tweetcli_closed_devices,
          tweetcli_reserved_emails FROM PUBLIC
        """,
    ]

    /// The collection groups only their owner reads (and some only the server): kept in
    /// `tweetcli_private`, whose rows an account's role sees only where the policy lets it.
    static let privateGroups = [
        "credentials", "sessions", "bookmarks", "twtxt-following", "follow-requests", "notifications",
        "notification-state", "user-filters",
    ]
    /// The private groups that are collections of their own (`credentials/{uid}`), not a user's
    /// (`users/{uid}/bookmarks`).
    static let topLevelPrivateGroups = ["credentials", "sessions", "notification-state", "user-filters"]

    /// What makes the documents table two, once: the public documents in `tweetcli_public` (the
    /// table as it was, with its indexes) and the private ones in `tweetcli_private`, under
    /// row-level security, with `tweetcli_documents` their union, which every query reads as the
    /// role that runs it (`security_invoker`). The public documents carry no policy, so that the
    /// planner serves a query's every condition from its indexes, as before.
    static let split = [
        "ALTER TABLE tweetcli_documents RENAME TO tweetcli_public",
        // Its own indexes only (set-up adds the private collections' ones): every index a table has
        // is loaded to plan each statement on it.
        "CREATE TABLE tweetcli_private (LIKE tweetcli_public INCLUDING DEFAULTS INCLUDING CONSTRAINTS)",
        "ALTER TABLE tweetcli_private ADD PRIMARY KEY (collection, id)",
        """
        CREATE VIEW tweetcli_documents WITH (security_invoker = true) AS
          SELECT collection, id, group_id, data FROM tweetcli_public
          UNION ALL SELECT collection, id, group_id, data FROM tweetcli_private
        """,
        "ALTER TABLE tweetcli_private ENABLE ROW LEVEL SECURITY",
    ]

    /// What every set-up does again, so that a database set up by an earlier build gets it too:
    /// the private documents moved out of the public table, the emails of accounts made before
    /// taken out of their documents to a table only the owner reads (where they stay taken), and
    /// the policy: a role sees its own private rows, a follow request its two people, a
    /// notification its recipient and the one who caused it, a password hash nobody.
    static func privacy() -> [String] {
        let groups = privateGroups.map { "'\($0)'" }.joined(separator: ", ")
        let topLevel = topLevelPrivateGroups.map { "'\($0)'" }.joined(separator: ", ")
        return [
            """
            INSERT INTO tweetcli_private SELECT * FROM tweetcli_public WHERE group_id IN (\(groups))
              AND collection = CASE WHEN group_id IN (\(topLevel)) THEN group_id
                ELSE 'users/' || split_part(collection, '/', 2) || '/' || group_id END
              ON CONFLICT (collection, id) DO NOTHING
            """,
            "DELETE FROM tweetcli_public p USING tweetcli_private x WHERE p.collection = x.collection AND p.id = x.id",
            """
            INSERT INTO tweetcli_reserved_emails SELECT lower(data->>'email'), id FROM tweetcli_public
              WHERE collection = 'users' AND jsonb_typeof(data->'email') = 'string' ON CONFLICT DO NOTHING
            """,
            "UPDATE tweetcli_public SET data = data - 'email' WHERE collection = 'users' AND data ? 'email'",
            "DROP POLICY IF EXISTS tweetcli_own ON tweetcli_private",
            """
            CREATE POLICY tweetcli_own ON tweetcli_private FOR SELECT
              USING (tweetcli_may_read((SELECT tweetcli_uid()), collection, id, group_id, data))
            """,
        ]
    }

    /// The functions, each running as the owner (`SECURITY DEFINER`) with `schema` (quoted by the
    /// server) as its only search path, so that no object a client makes can stand in for one.
    static func functions(schema: String, channel: String) -> [String] {
        let header = "SECURITY DEFINER SET search_path = \(schema), pg_temp"
        let verifier = #"'^SCRAM-SHA-256\$[0-9]+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$'"#
        return [
            // A password reaches the server only as a SCRAM verifier the client made.
            """
            CREATE OR REPLACE FUNCTION tweetcli_require_verifier(p_verifier text) RETURNS void LANGUAGE plpgsql AS $$
            BEGIN
              IF p_verifier IS NULL OR p_verifier !~ \(verifier) THEN
                RAISE EXCEPTION 'a password reaches the server only as a SCRAM-SHA-256 verifier'
                  USING ERRCODE = '\(refusedField)';
              END IF;
            END $$
            """,
            // A client's role cannot sit in a transaction (holding the clock row, which every write
            // waits for) or a statement for long.
            """
            CREATE OR REPLACE FUNCTION tweetcli_limit_role(p_role text) RETURNS void LANGUAGE plpgsql \(header) AS $$
            BEGIN
              EXECUTE format('ALTER ROLE %I SET idle_in_transaction_session_timeout = %L', p_role, '10s');
              EXECUTE format('ALTER ROLE %I SET statement_timeout = %L', p_role, '30s');
              EXECUTE format('ALTER ROLE %I SET lock_timeout = %L', p_role, '10s');
            END $$
            """,
            // Who may read a private document: its owner; a follow request, its two people; a
            // notification, its recipient and the one who caused it; a password hash, nobody.
            """
            CREATE OR REPLACE FUNCTION tweetcli_may_read(p_me text, p_collection text, p_id text, p_group text,
              p_data jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
              SELECT p_me IS NOT NULL AND CASE p_group
                WHEN 'sessions' THEN p_data->>'uid' = p_me
                WHEN 'credentials' THEN false
                WHEN 'notification-state' THEN p_collection = p_group AND p_id = p_me
                WHEN 'user-filters' THEN p_collection = p_group AND p_id = p_me
                WHEN 'follow-requests' THEN p_collection = 'users/' || p_me || '/follow-requests' OR p_id = p_me
                WHEN 'notifications' THEN p_collection = 'users/' || p_me || '/notifications' OR p_data->>'from' = p_me
                ELSE p_collection = 'users/' || p_me || '/' || p_group END $$
            """,
            // Private documents reach an account only through these, never from the table itself: a
            // plan over the table (EXPLAIN ANALYZE) would count the rows the policy hides.
            // PL/pgSQL, so that each call is planned with its own arguments: a page's few paths are
            // a few key lookups, and one collection's rows one index range.
            """
            CREATE OR REPLACE FUNCTION tweetcli_private_at(p_collections text[], p_ids text[])
              RETURNS TABLE (collection text, id text, group_id text, data jsonb) LANGUAGE plpgsql STABLE \(header) AS $$
            DECLARE v_me text := tweetcli_uid(); v_owner boolean := tweetcli_is_owner();
            BEGIN
              RETURN QUERY SELECT d.collection::text, d.id::text, d.group_id::text, d.data
                FROM unnest(p_collections, p_ids) AS p(c, i)
                JOIN tweetcli_private d ON d.collection = p.c COLLATE "C" AND d.id = p.i COLLATE "C"
                WHERE v_owner OR tweetcli_may_read(v_me, d.collection, d.id, d.group_id, d.data);
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION tweetcli_private_in(p_collection text, p_group text)
              RETURNS TABLE (collection text, id text, group_id text, data jsonb) LANGUAGE plpgsql STABLE \(header) AS $$
            DECLARE v_me text := tweetcli_uid(); v_owner boolean := tweetcli_is_owner();
            BEGIN
              IF p_collection IS NULL THEN
                RETURN QUERY SELECT d.collection::text, d.id::text, d.group_id::text, d.data FROM tweetcli_private d
                  WHERE d.group_id = p_group AND (v_owner OR tweetcli_may_read(v_me, d.collection, d.id, d.group_id, d.data));
              ELSE
                RETURN QUERY SELECT d.collection::text, d.id::text, d.group_id::text, d.data FROM tweetcli_private d
                  WHERE d.collection = p_collection COLLATE "C" AND d.group_id = p_group
                  AND (v_owner OR tweetcli_may_read(v_me, d.collection, d.id, d.group_id, d.data));
              END IF;
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION tweetcli_private_all()
              RETURNS TABLE (collection text, id text, group_id text, data jsonb) LANGUAGE sql STABLE \(header) AS $$
              SELECT d.collection, d.id, d.group_id, d.data FROM tweetcli_private d
                WHERE (SELECT tweetcli_is_owner()) OR tweetcli_may_read((SELECT tweetcli_uid()), d.collection, d.id, d.group_id, d.data) $$
            """,
            // The account whose own role is connected (not a device's).
            """
            CREATE OR REPLACE FUNCTION tweetcli_session_account() RETURNS tweetcli_accounts
            LANGUAGE plpgsql STABLE \(header) AS $$
            DECLARE v_account tweetcli_accounts;
            BEGIN
              SELECT * INTO v_account FROM tweetcli_accounts a WHERE a.role = session_user::text;
              IF NOT FOUND THEN
                RAISE EXCEPTION 'only an account''s own role does this' USING ERRCODE = '\(notAnAccount)';
              END IF;
              RETURN v_account;
            END $$
            """,
            // The commit's time, after the last commit's, with the clock row locked to the commit
            // and the watchers told: what every write of the engine does first.
            """
            CREATE OR REPLACE FUNCTION tweetcli_commit_stamp() RETURNS text LANGUAGE plpgsql \(header) AS $$
            DECLARE v_ms bigint;
            BEGIN
              UPDATE tweetcli_clock SET last_ms = greatest((extract(epoch FROM clock_timestamp()) * 1000)::bigint,
                last_ms + 1) WHERE id = 1 RETURNING last_ms INTO v_ms;
              PERFORM pg_notify('\(channel)', current_schema());
              RETURN to_char(to_timestamp(v_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION tweetcli_uid() RETURNS text LANGUAGE sql STABLE \(header) AS $$
              SELECT uid FROM tweetcli_devices WHERE role = session_user::text
              UNION ALL SELECT uid FROM tweetcli_accounts WHERE role = session_user::text LIMIT 1 $$
            """,
            // The role to sign in as for a username (with or without its @) or an email; for one
            // nobody has, a name like an account's that no role has, so that the answer does not
            // tell whether an email is registered.
            """
            CREATE OR REPLACE FUNCTION tweetcli_account_role(p_identifier text) RETURNS text
            LANGUAGE sql STABLE \(header) AS $$
              SELECT coalesce(
                (SELECT role FROM tweetcli_accounts
                 WHERE username = lower(ltrim(btrim(p_identifier), '@')) OR email = lower(btrim(p_identifier)) LIMIT 1),
                (SELECT prefix || '_u_' || translate(left(encode(sha256(convert_to(secret || lower(btrim(p_identifier)),
                   'UTF8')), 'base64'), 20), '+/', 'Xy') FROM tweetcli_setup)) $$
            """,
            // What registering and claiming an account both make: the account's role (with the
            // password's verifier), this device's role in it, their rows, and the device's session.
            // Returns the device's role.
            """
            CREATE OR REPLACE FUNCTION tweetcli_make_account(p_uid text, p_username text, p_email text,
              p_verifier text, p_device_verifier text, p_session text) RETURNS text LANGUAGE plpgsql \(header) AS $$
            DECLARE v_prefix text; v_account text; v_device text; v_stamp text;
            BEGIN
              SELECT prefix INTO STRICT v_prefix FROM tweetcli_setup;
              v_stamp := tweetcli_commit_stamp();
              v_account := v_prefix || '_u_' || p_uid;
              v_device := v_prefix || '_d_' || replace(gen_random_uuid()::text, '-', '');
              EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L IN ROLE %I', v_account, p_verifier, v_prefix || '_users');
              EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L IN ROLE %I', v_device, p_device_verifier, v_account);
              PERFORM tweetcli_limit_role(v_account);
              PERFORM tweetcli_limit_role(v_device);
              INSERT INTO tweetcli_accounts VALUES (p_uid, v_account, p_username, p_email);
              INSERT INTO tweetcli_devices (role, uid, session) VALUES (v_device, p_uid, p_session);
              INSERT INTO tweetcli_private (collection, id, group_id, data) VALUES ('sessions', p_session, 'sessions',
                jsonb_build_object('uid', p_uid, 'created', v_stamp, 'lastUsed', v_stamp));
              RETURN v_device;
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION tweetcli_register(p_uid text, p_username text, p_email text, p_fullname text,
              p_verifier text, p_device_verifier text, p_session text) RETURNS text LANGUAGE plpgsql \(header) AS $$
            DECLARE v_device text;
            BEGIN
              IF p_uid IS NULL OR p_uid !~ '^[A-Za-z0-9]{20}$' THEN
                RAISE EXCEPTION 'the account''s uid is not one tweetcli makes' USING ERRCODE = '\(refusedField)';
              END IF;
              IF p_username IS NULL OR p_username !~ '^[a-z0-9_]{1,15}$' THEN
                RAISE EXCEPTION 'a username is 1 to 15 lowercase letters, digits or underscores'
                  USING ERRCODE = '\(refusedField)';
              END IF;
              IF p_email IS NULL OR length(p_email) > 254 OR p_email <> lower(p_email)
                OR p_email !~ '^[^@[:space:][:cntrl:]]+@[^@[:space:][:cntrl:]]+$' THEN
                RAISE EXCEPTION 'the email is not an address' USING ERRCODE = '\(refusedField)';
              END IF;
              IF p_fullname IS NULL OR char_length(p_fullname) NOT BETWEEN 1 AND 50 OR p_fullname ~ '[[:cntrl:]]' THEN
                RAISE EXCEPTION 'a full name is 1 to 50 characters on one line' USING ERRCODE = '\(refusedField)';
              END IF;
              PERFORM tweetcli_require_verifier(p_verifier);
              PERFORM tweetcli_require_verifier(p_device_verifier);
              IF p_session IS NULL OR p_session !~ '^[A-Za-z0-9.-]{8,64}$' THEN
                RAISE EXCEPTION 'the session''s name is not one tweetcli makes' USING ERRCODE = '\(refusedField)';
              END IF;
              -- One registration at a time, so that the checks below hold to the commit: a row lock
              -- no client can take (an advisory lock anyone could hold for ever).
              PERFORM 1 FROM tweetcli_setup FOR UPDATE;
              IF EXISTS (SELECT 1 FROM tweetcli_accounts WHERE username = p_username)
                OR EXISTS (SELECT 1 FROM tweetcli_public WHERE collection = 'users' AND group_id = 'users'
                  AND tweetcli_rank(data->'username') = 3 AND tweetcli_num(data->'username') = 0
                  AND (tweetcli_str(data->'username') COLLATE "C") = p_username) THEN
                RAISE EXCEPTION 'the username is taken' USING ERRCODE = '\(usernameTaken)';
              END IF;
              IF EXISTS (SELECT 1 FROM tweetcli_accounts WHERE email = p_email)
                OR EXISTS (SELECT 1 FROM tweetcli_reserved_emails WHERE email = p_email) THEN
                RAISE EXCEPTION 'the email is taken' USING ERRCODE = '\(emailTaken)';
              END IF;
              v_device := tweetcli_make_account(p_uid, p_username, p_email, p_verifier, p_device_verifier, p_session);
              INSERT INTO tweetcli_public (collection, id, group_id, data) VALUES
                ('users', p_uid, 'users', jsonb_build_object('username', p_username,
                  'fullname', p_fullname, 'profileImageUrl', NULL, 'bio', NULL, 'location', NULL, 'website', NULL,
                  'twtxtUrl', NULL, 'protected', false)),
                ('user-stats', p_uid, 'user-stats', '{"following": 0, "followers": 0, "tweets": 0}');
              RETURN v_device;
            END $$
            """,
            // An account made before the set-up keeps its password as a yescrypt hash in
            // `credentials`, which the server cannot check a password against: its owner proves it by
            // hashing the password with the hash's setting (its cost and salt) and handing in the
            // hash, once. The account then gets its role, as a registered one has, and the hash goes.
            // The account an identifier names that still keeps such a hash:
            """
            CREATE OR REPLACE FUNCTION tweetcli_kept_uid(p_identifier text) RETURNS text
            LANGUAGE sql STABLE \(header) AS $$
              SELECT u.id FROM tweetcli_public u
              WHERE u.collection = 'users' AND u.group_id = 'users'
                AND (u.id = (SELECT r.uid FROM tweetcli_reserved_emails r WHERE r.email = lower(btrim(p_identifier)))
                  OR (tweetcli_rank(u.data->'username') = 3 AND tweetcli_num(u.data->'username') = 0
                    AND (tweetcli_str(u.data->'username') COLLATE "C") = lower(ltrim(btrim(p_identifier), '@'))))
                AND NOT EXISTS (SELECT 1 FROM tweetcli_accounts a WHERE a.uid = u.id)
                AND EXISTS (SELECT 1 FROM tweetcli_private c WHERE c.collection = 'credentials' AND c.id = u.id)
              ORDER BY u.id LIMIT 1 $$
            """,
            // The setting of that hash (yescrypt's, as tweetcli makes it); for an identifier that names no
            // such account, a setting made from it and the set-up's secret, the same each time, which
            // looks like one. (Answers compared with each other still show that an email is a kept
            // account's, and whose, as `pg_roles` does for a registered one's.)
            """
            CREATE OR REPLACE FUNCTION tweetcli_kept_setting(p_identifier text) RETURNS text
            LANGUAGE sql STABLE \(header) AS $$
              SELECT coalesce(
                (SELECT substring(c.data->>'passwordHash' FROM '^([$]y[$]j9T[$][./0-9A-Za-z]{21}[./01])[$][./0-9A-Za-z]+$')
                 FROM tweetcli_private c WHERE c.collection = 'credentials' AND c.id = tweetcli_kept_uid(p_identifier)),
                -- 21 characters of salt, then one of the four a 16-byte salt may end with.
                (SELECT '$y$j9T$' || translate(left(encode(d, 'base64'), 21), '+/', './')
                   || substr('./01', get_byte(d, 31) % 4 + 1, 1)
                 FROM (SELECT sha256(convert_to(secret || ' setting ' || lower(ltrim(btrim(p_identifier), '@')),
                   'UTF8')) AS d FROM tweetcli_setup) s)) $$
            """,
            """
            CREATE OR REPLACE FUNCTION tweetcli_claim(p_identifier text, p_hash text, p_verifier text,
              p_device_verifier text, p_session text)
              RETURNS TABLE (device_role text, account_uid text, account_username text) LANGUAGE plpgsql \(header) AS $$
            DECLARE v_uid text; v_kept text; v_username text; v_email text; v_device text; v_round integer;
            BEGIN
              PERFORM tweetcli_require_verifier(p_verifier);
              PERFORM tweetcli_require_verifier(p_device_verifier);
              IF p_session IS NULL OR p_session !~ '^[A-Za-z0-9.-]{8,64}$' THEN
                RAISE EXCEPTION 'the session''s name is not one tweetcli makes' USING ERRCODE = '\(refusedField)';
              END IF;
              -- The hash is checked before the lock, so that a wrong password keeps no registration
              -- waiting, then again under it (one at a time with registrations, so that the account's
              -- name and email stay its own), since another device may have claimed it meanwhile.
              -- Digests are compared, so that the time taken says nothing of where the two differ.
              FOR v_round IN 1..2 LOOP
                v_uid := tweetcli_kept_uid(p_identifier);
                SELECT c.data->>'passwordHash' INTO v_kept FROM tweetcli_private c
                  WHERE c.collection = 'credentials' AND c.id = v_uid;
                IF v_uid IS NULL OR v_kept IS NULL OR v_kept !~ '^[$]y[$]' OR p_hash IS NULL
                  OR sha256(convert_to(p_hash, 'UTF8')) <> sha256(convert_to(v_kept, 'UTF8')) THEN
                  IF v_uid IS NOT NULL THEN
                    RAISE LOG 'tweetcli: a wrong password for account %, made before the set-up', v_uid;
                  END IF;
                  RAISE EXCEPTION 'the account or the password is wrong' USING ERRCODE = '\(invalidCredentials)';
                END IF;
                IF v_round = 1 THEN PERFORM 1 FROM tweetcli_setup FOR UPDATE; END IF;
              END LOOP;
              SELECT tweetcli_str(u.data->'username') INTO v_username FROM tweetcli_public u
                WHERE u.collection = 'users' AND u.id = v_uid;
              SELECT r.email INTO v_email FROM tweetcli_reserved_emails r WHERE r.uid = v_uid ORDER BY r.email LIMIT 1;
              IF v_uid !~ '^[A-Za-z0-9]{20}$' OR v_username IS NULL OR v_username !~ '^[a-z0-9_]{1,15}$'
                OR v_email IS NULL THEN
                RAISE EXCEPTION 'the account''s documents are not ones tweetcli makes' USING ERRCODE = '\(refusedField)';
              END IF;
              IF EXISTS (SELECT 1 FROM tweetcli_accounts a WHERE a.username = v_username OR a.email = v_email) THEN
                RAISE EXCEPTION 'the account''s username or email is another account''s now'
                  USING ERRCODE = '\(refusedField)';
              END IF;
              -- Sessions from before the set-up name no device: they go, as the hash does.
              DELETE FROM tweetcli_private WHERE collection = 'sessions' AND data->>'uid' = v_uid;
              v_device := tweetcli_make_account(v_uid, v_username, v_email, p_verifier, p_device_verifier, p_session);
              DELETE FROM tweetcli_private WHERE collection = 'credentials' AND id = v_uid;
              DELETE FROM tweetcli_reserved_emails WHERE uid = v_uid;
              RETURN QUERY SELECT v_device, v_uid, v_username;
            END $$
            """,
            // Devices ended while connected: their roles can be dropped once no session uses them.
            """
            CREATE OR REPLACE FUNCTION tweetcli_drop_closed_devices() RETURNS void LANGUAGE plpgsql \(header) AS $$
            DECLARE r record;
            BEGIN
              FOR r IN SELECT c.role FROM tweetcli_closed_devices c WHERE c.role <> session_user::text
                AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.usename = c.role) LOOP
                BEGIN
                  EXECUTE format('DROP ROLE IF EXISTS %I', r.role);
                  DELETE FROM tweetcli_closed_devices WHERE role = r.role;
                EXCEPTION WHEN OTHERS THEN
                  NULL;  -- Still in use after all: the next sign-in drops it.
                END;
              END LOOP;
            END $$
            """,
            // Ends a device: its session document goes, its role can no longer log in nor act as the
            // account (in a connection open now, too), and it is dropped as soon as nothing uses it.
            """
            CREATE OR REPLACE FUNCTION tweetcli_end_device(p_role text) RETURNS void LANGUAGE plpgsql \(header) AS $$
            DECLARE v_device tweetcli_devices; v_account text;
            BEGIN
              SELECT * INTO v_device FROM tweetcli_devices d WHERE d.role = p_role;
              IF NOT FOUND THEN RETURN; END IF;
              SELECT a.role INTO v_account FROM tweetcli_accounts a WHERE a.uid = v_device.uid;
              PERFORM tweetcli_commit_stamp();
              DELETE FROM tweetcli_private WHERE collection = 'sessions' AND id = v_device.session;
              DELETE FROM tweetcli_devices WHERE role = p_role;
              EXECUTE format('ALTER ROLE %I NOLOGIN PASSWORD NULL', p_role);
              EXECUTE format('REVOKE %I FROM %I', v_account, p_role);
              INSERT INTO tweetcli_closed_devices VALUES (p_role) ON CONFLICT DO NOTHING;
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION tweetcli_open_device(p_verifier text, p_session text)
              RETURNS TABLE (device_role text, account_uid text, account_username text) LANGUAGE plpgsql \(header) AS $$
            DECLARE v_account tweetcli_accounts := tweetcli_session_account(); v_device text; v_stamp text;
            BEGIN
              PERFORM tweetcli_require_verifier(p_verifier);
              IF p_session IS NULL OR p_session !~ '^[A-Za-z0-9.-]{8,64}$' THEN
                RAISE EXCEPTION 'the session''s name is not one tweetcli makes' USING ERRCODE = '\(refusedField)';
              END IF;
              PERFORM tweetcli_drop_closed_devices();
              v_stamp := tweetcli_commit_stamp();
              v_device := split_part(v_account.role, '_u_', 1) || '_d_' || replace(gen_random_uuid()::text, '-', '');
              EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L IN ROLE %I', v_device, p_verifier, v_account.role);
              PERFORM tweetcli_limit_role(v_device);
              INSERT INTO tweetcli_devices (role, uid, session) VALUES (v_device, v_account.uid, p_session);
              INSERT INTO tweetcli_private (collection, id, group_id, data) VALUES ('sessions', p_session, 'sessions',
                jsonb_build_object('uid', v_account.uid, 'created', v_stamp, 'lastUsed', v_stamp));
              RETURN QUERY SELECT v_device, v_account.uid::text, v_account.username::text;
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION tweetcli_close_device() RETURNS void LANGUAGE plpgsql \(header) AS $$
            BEGIN
              PERFORM tweetcli_end_device(session_user::text);
            END $$
            """,
            // The signed-in account, once its documents are gone (delete-account removes them
            // through the rules first): every device ended, the account's role too.
            """
            CREATE OR REPLACE FUNCTION tweetcli_close_account() RETURNS void LANGUAGE plpgsql \(header) AS $$
            DECLARE v_uid text := tweetcli_uid(); v_role text; r record;
            BEGIN
              IF v_uid IS NULL THEN
                RAISE EXCEPTION 'only a signed-in account closes itself' USING ERRCODE = '\(notAnAccount)';
              END IF;
              IF EXISTS (SELECT 1 FROM tweetcli_public WHERE collection = 'users' AND id = v_uid) THEN
                RAISE EXCEPTION 'an account is closed once its documents are gone' USING ERRCODE = '\(refusedField)';
              END IF;
              FOR r IN SELECT d.role FROM tweetcli_devices d WHERE d.uid = v_uid LOOP
                PERFORM tweetcli_end_device(r.role);
              END LOOP;
              SELECT a.role INTO v_role FROM tweetcli_accounts a WHERE a.uid = v_uid;
              DELETE FROM tweetcli_accounts WHERE uid = v_uid;
              EXECUTE format('ALTER ROLE %I NOLOGIN PASSWORD NULL', v_role);
              INSERT INTO tweetcli_closed_devices VALUES (v_role) ON CONFLICT DO NOTHING;
            END $$
            """,
            // A new password for the account whose role is connected (which proved the current
            // one); every device but `p_keep` is ended.
            """
            CREATE OR REPLACE FUNCTION tweetcli_set_password(p_verifier text, p_keep text) RETURNS integer
            LANGUAGE plpgsql \(header) AS $$
            DECLARE v_account tweetcli_accounts := tweetcli_session_account(); v_count integer := 0; r record;
            BEGIN
              PERFORM tweetcli_require_verifier(p_verifier);
              EXECUTE format('ALTER ROLE %I PASSWORD %L', v_account.role, p_verifier);
              FOR r IN SELECT d.role FROM tweetcli_devices d WHERE d.uid = v_account.uid
                AND d.role IS DISTINCT FROM p_keep LOOP
                PERFORM tweetcli_end_device(r.role);
                v_count := v_count + 1;
              END LOOP;
              RETURN v_count;
            END $$
            """,
        ]
    }

    /// Who may call what: every function is the owner's alone but these.
    static let functionSignatures = [
        "tweetcli_require_verifier(text)", "tweetcli_session_account()", "tweetcli_limit_role(text)",
        "tweetcli_may_read(text, text, text, text, jsonb)", "tweetcli_private_at(text[], text[])",
        "tweetcli_private_in(text, text)", "tweetcli_private_all()",
        "tweetcli_commit_stamp()", "tweetcli_uid()",
        "tweetcli_account_role(text)",
        "tweetcli_register(text, text, text, text, text, text, text)", "tweetcli_drop_closed_devices()",
        "tweetcli_kept_uid(text)", "tweetcli_kept_setting(text)", "tweetcli_claim(text, text, text, text, text)",
        "tweetcli_make_account(text, text, text, text, text, text)",
        "tweetcli_end_device(text)", "tweetcli_open_device(text, text)", "tweetcli_close_device()",
        "tweetcli_set_password(text, text)", "tweetcli_close_account()",
    ]
    static let guestFunctions = [
        "tweetcli_account_role(text)", "tweetcli_register(text, text, text, text, text, text, text)",
        "tweetcli_kept_setting(text)", "tweetcli_claim(text, text, text, text, text)",
    ]
    static let userFunctions = [
        "tweetcli_uid()", "tweetcli_account_role(text)", "tweetcli_open_device(text, text)",
        "tweetcli_close_device()", "tweetcli_set_password(text, text)", "tweetcli_close_account()",
        "tweetcli_private_at(text[], text[])", "tweetcli_private_in(text, text)", "tweetcli_private_all()",
    ]
}
