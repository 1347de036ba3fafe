/// The rules of a database set up for many people, enforced by PostgreSQL whatever the client:
/// an account's role has no right to write a table. Every write goes through `tweetcli_apply`,
/// which takes a transaction's writes as the engine made them (sets, field updates with their
/// increments, deletions), resolves them against the documents as committed, checks each change
/// with the whole transaction in view, as Firestore's rules do with `getAfter`, and only then
/// writes. What the rules say, path by path, is in docs/POSTGRES.md.
enum PostgresRulesSQL {
    /// The SQLSTATE of a write the rules refuse, and of one the engine's own rules refuse (an
    /// update of a missing document).
    static let refused = "TW007"
    static let missingDocument = "TW006"

    static func functions(schema: String, channel: String) -> [String] {
        let header = "SECURITY DEFINER SET search_path = \(schema), pg_temp"
        let privateGroups = PostgresAccountsSQL.privateGroups.map { "'\($0)'" }.joined(separator: ", ")
        return [
            // The clock, as every write transaction takes it first; the server's time, not the client's.
            """
            CREATE OR REPLACE FUNCTION tweetcli_begin_write() RETURNS bigint LANGUAGE plpgsql \(header) AS $$
            DECLARE v_ms bigint;
            BEGIN
              IF tweetcli_uid() IS NULL AND NOT tweetcli_is_owner() THEN
                RAISE EXCEPTION 'only a signed-in account writes' USING ERRCODE = '\(PostgresAccountsSQL.notAnAccount)';
              END IF;
              UPDATE tweetcli_clock SET last_ms = greatest((extract(epoch FROM clock_timestamp()) * 1000)::bigint,
                last_ms + 1) WHERE id = 1 RETURNING last_ms INTO v_ms;
              PERFORM pg_notify('\(channel)', current_schema());
              RETURN v_ms;
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION tweetcli_refuse(p_reason text) RETURNS void LANGUAGE plpgsql AS $$
            BEGIN
              RAISE EXCEPTION 'the store''s rules refuse this: %', p_reason USING ERRCODE = '\(refused)';
            END $$
            """,
            // Whether the role that connected owns the store's tables: its writes are trusted.
            """
            CREATE OR REPLACE FUNCTION tweetcli_is_owner() RETURNS boolean LANGUAGE sql STABLE \(header) AS $$
              SELECT pg_has_role(session_user, (SELECT relowner FROM pg_class WHERE oid = 'tweetcli_public'::regclass),
                'USAGE') $$
            """,
            """
            CREATE OR REPLACE FUNCTION tweetcli_owns_private(p_me text, p_collection text, p_id text) RETURNS boolean
            LANGUAGE sql IMMUTABLE AS $$
              SELECT p_collection LIKE 'users/' || p_me || '/%' OR (p_collection IN ('notification-state', 'user-filters',
                'credentials') AND p_id = p_me) $$
            """,
            """
            CREATE OR REPLACE FUNCTION tweetcli_is_private(p_collection text) RETURNS boolean
            LANGUAGE sql IMMUTABLE AS $$
              SELECT regexp_replace(p_collection, '^.*/', '') IN (\(privateGroups)) $$
            """,
            // A count as the engine reads one: an integer, else 0.
            """
            CREATE OR REPLACE FUNCTION tweetcli_int(p_value jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE AS $$
              SELECT CASE WHEN jsonb_typeof(p_value) = 'number' AND (p_value #>> '{}') ~ '^-?[0-9]+$'
                THEN (p_value #>> '{}')::numeric ELSE 0 END $$
            """,
            // Whether a stored count is one: a whole number of 0 or more.
            """
            CREATE OR REPLACE FUNCTION tweetcli_is_count(p_value jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
              SELECT jsonb_typeof(p_value) = 'number' AND (p_value #>> '{}') ~ '^[0-9]{1,18}$' $$
            """,
            // A following list's uids but one, in order, and its other fields.
            """
            CREATE OR REPLACE FUNCTION tweetcli_uids_without(p_doc jsonb, p_uid text) RETURNS jsonb
            LANGUAGE sql IMMUTABLE AS $$
              SELECT CASE WHEN jsonb_typeof(p_doc) = 'object' THEN p_doc - 'uids' ELSE '{}'::jsonb END
                || jsonb_build_object('uids', coalesce((SELECT jsonb_agg(u ORDER BY u) FROM jsonb_array_elements(
                  CASE WHEN jsonb_typeof(p_doc->'uids') = 'array' THEN p_doc->'uids' ELSE '[]' END) AS u
                  WHERE u <> to_jsonb(p_uid)), '[]')) $$
            """,
            // What a transaction did to one document: +1 made, -1 removed, 0 neither.
            """
            CREATE OR REPLACE FUNCTION tweetcli_made(p_docs jsonb, p_collection text, p_id text) RETURNS integer
            LANGUAGE sql IMMUTABLE AS $$
              SELECT CASE WHEN e IS NULL THEN 0 WHEN e->'old' = 'null' AND e->'new' <> 'null' THEN 1
                WHEN e->'old' <> 'null' AND e->'new' = 'null' THEN -1 ELSE 0 END
              FROM (SELECT p_docs->(jsonb_build_array(p_collection, p_id)::text) AS e) AS x $$
            """,
            // The tweets by `p_uid` a transaction made (+1 each) or removed (-1 each) whose `p_field`
            // is `p_value` (a reply's `replyToId`, a quote's `quoteId`), or all of them when `p_field` is null.
            """
            CREATE OR REPLACE FUNCTION tweetcli_tweets_made(p_docs jsonb, p_uid text, p_field text, p_value text)
            RETURNS integer LANGUAGE sql IMMUTABLE AS $$
              SELECT coalesce(sum(CASE WHEN e->'old' = 'null' AND e->'new' <> 'null'
                  AND e->'new'->>'uid' = p_uid AND (p_field IS NULL OR e->'new'->>p_field = p_value) THEN 1
                WHEN e->'old' <> 'null' AND e->'new' = 'null'
                  AND e->'old'->>'uid' = p_uid AND (p_field IS NULL OR e->'old'->>p_field = p_value) THEN -1
                ELSE 0 END), 0)::integer
              FROM jsonb_each(p_docs) AS t(k, e) WHERE e->>'c' = 'tweets' $$
            """,
            // The documents made (+1) or removed (-1) in a collection.
            """
            CREATE OR REPLACE FUNCTION tweetcli_collection_made(p_docs jsonb, p_collection text) RETURNS integer
            LANGUAGE sql IMMUTABLE AS $$
              SELECT coalesce(sum(CASE WHEN e->'old' = 'null' AND e->'new' <> 'null' THEN 1
                WHEN e->'old' <> 'null' AND e->'new' = 'null' THEN -1 ELSE 0 END), 0)::integer
              FROM jsonb_each(p_docs) AS t(k, e) WHERE e->>'c' = p_collection $$
            """,
            // Whether the tweet `p_id` is one of `p_me`'s that this transaction deletes.
            """
            CREATE OR REPLACE FUNCTION tweetcli_deletes_own_tweet(p_docs jsonb, p_me text, p_id text) RETURNS boolean
            LANGUAGE sql IMMUTABLE AS $$
              SELECT coalesce((SELECT e->'new' = 'null' AND e->'old'->>'uid' = p_me
                FROM (SELECT p_docs->(jsonb_build_array('tweets', p_id)::text) AS e) AS x), false) $$
            """,
            // The first 8 characters of a tweet's ID made at `p_ms` (milliseconds since 1970): base
            // 62 in ASCII order, as tweetcli's IDGenerator makes them.
            """
            CREATE OR REPLACE FUNCTION tweetcli_time_id(p_ms bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
              SELECT string_agg(substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
                (floor(greatest(p_ms, 0) / (62::numeric ^ k))::bigint % 62)::integer + 1, 1), '' ORDER BY k DESC)
              FROM generate_series(0, 7) AS k $$
            """,
            // ASCII letters lowered whatever the server's locale: how tweetcli folds an ASCII term.
            """
            CREATE OR REPLACE FUNCTION tweetcli_ascii_lower(p text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
              SELECT translate(p, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') $$
            """,
            // A tweet's hashtags or mentions as its entities keep them.
            """
            CREATE OR REPLACE FUNCTION tweetcli_entities(p_tweet jsonb, p_kind text) RETURNS SETOF text
            LANGUAGE sql IMMUTABLE AS $$
              SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof(p_tweet->'entities'->p_kind) = 'array'
                THEN p_tweet->'entities'->p_kind ELSE '[]' END) $$
            """,
            // Whether a new tweet may be indexed under a term (a search document's ID, `/` and `%`
            // escaped). An ASCII term is a hashtag, a mention or a word of plain ASCII text; terms
            // of other text are folded as only tweetcli knows, so they need only some text beyond ASCII.
            """
            CREATE OR REPLACE FUNCTION tweetcli_may_index(p_tweet jsonb, p_term text) RETURNS boolean
            LANGUAGE sql IMMUTABLE AS $$
              SELECT CASE left(t, 1)
                WHEN '#' THEN EXISTS (SELECT 1 FROM tweetcli_entities(p_tweet, 'hashtags') AS h
                  WHERE octet_length(h) <> length(h) OR left(tweetcli_ascii_lower(h), 40) = substr(t, 2))
                WHEN '@' THEN EXISTS (SELECT 1 FROM tweetcli_entities(p_tweet, 'mentions') AS m
                  WHERE tweetcli_ascii_lower(m) = substr(t, 2))
                ELSE octet_length(c) <> length(c) OR position(t IN tweetcli_ascii_lower(c)) > 0 END
              FROM (SELECT replace(replace(p_term, '%2F', '/'), '%25', '%') AS t,
                coalesce(p_tweet->>'caption', '') AS c) AS x $$
            """,
            // What a transaction did to a term's buckets, counted by tweet ID: the IDs it put in a
            // bucket (each the writer's tweet made now, whose text holds the term) less those it
            // took out of one (each the writer's tweet deleted now). NULL when any other ID went in
            // or out, moved between buckets included: only the owner's reindex moves them.
            """
            CREATE OR REPLACE FUNCTION tweetcli_index_net(p_docs jsonb, p_me text, p_term text) RETURNS integer
            LANGUAGE sql IMMUTABLE AS $$
              WITH moved AS (
                SELECT x.id, sum(x.n) AS n FROM jsonb_each(p_docs) AS t(k, e), LATERAL (
                  SELECT v, 1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(e->'new'->'ids') = 'array'
                    THEN e->'new'->'ids' ELSE '[]' END) AS v
                  UNION ALL
                  SELECT v, -1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(e->'old'->'ids') = 'array'
                    THEN e->'old'->'ids' ELSE '[]' END) AS v) AS x(id, n)
                WHERE e->>'c' = 'terms/' || p_term || '/buckets'
                GROUP BY t.k, x.id HAVING sum(x.n) <> 0),
              judged AS (SELECT n, p_docs->(jsonb_build_array('tweets', id)::text) AS tweet FROM moved)
              SELECT CASE WHEN bool_and(coalesce(
                  (n = 1 AND tweet->'old' = 'null' AND tweet->'new'->>'uid' = p_me
                    AND tweetcli_may_index(tweet->'new', p_term))
                  OR (n = -1 AND tweet->'new' = 'null' AND tweet->'old'->>'uid' = p_me), false)) IS NOT FALSE
                THEN coalesce(sum(n), 0)::integer END
              FROM judged $$
            """,
            // Whether a bucket's IDs are strings in byte order, each once.
            """
            CREATE OR REPLACE FUNCTION tweetcli_is_id_list(p_ids jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
              SELECT NOT EXISTS (SELECT 1 FROM (SELECT v, lag(v) OVER (ORDER BY o) AS before
                FROM jsonb_array_elements(p_ids) WITH ORDINALITY AS a(v, o)) AS x
                WHERE jsonb_typeof(v) <> 'string' OR (before IS NOT NULL
                  AND NOT ((before #>> '{}') COLLATE "C" < (v #>> '{}') COLLATE "C"))) $$
            """,
            // An hour's count of one hashtag as tweetcli reads it: `[as written, tweets]`, else 0.
            """
            CREATE OR REPLACE FUNCTION tweetcli_trend_count(p_entry jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE AS $$
              SELECT CASE WHEN jsonb_typeof(p_entry) = 'array' THEN
                CASE WHEN jsonb_array_length(p_entry) = 2 AND jsonb_typeof(p_entry->0) = 'string'
                  AND tweetcli_is_count(p_entry->1) THEN tweetcli_int(p_entry->1) ELSE 0 END
                ELSE 0 END $$
            """,
            // The writer's tweets of hour `p_hour` (`yyyyMMddHH`) that count in trends, made (+1) or
            // deleted (-1) by the transaction.
            """
            CREATE OR REPLACE FUNCTION tweetcli_hour_tweets(p_docs jsonb, p_me text, p_hour text)
            RETURNS TABLE (n integer, tweet jsonb) LANGUAGE sql IMMUTABLE AS $$
              SELECT x.n, x.tweet FROM (
                SELECT CASE WHEN e->'old' = 'null' THEN 1 ELSE -1 END AS n,
                  CASE WHEN e->'old' = 'null' THEN e->'new' ELSE e->'old' END AS tweet
                FROM jsonb_each(p_docs) AS t(k, e)
                WHERE e->>'c' = 'tweets' AND (e->'old' = 'null') <> (e->'new' = 'null')) AS x
              WHERE x.tweet->>'uid' = p_me AND coalesce(x.tweet->'untrended', 'false') <> 'true'
                AND regexp_replace(left(x.tweet->>'timestamp', 13), '[^0-9]', '', 'g') = p_hour $$
            """,
            // Whether a tweet has a hashtag that folds to `p_key` (one of another alphabet might;
            // only tweetcli knows), or one in its caption when it keeps no entities.
            """
            CREATE OR REPLACE FUNCTION tweetcli_has_hashtag(p_tweet jsonb, p_key text) RETURNS boolean
            LANGUAGE sql IMMUTABLE AS $$
              SELECT CASE WHEN jsonb_typeof(p_tweet->'entities'->'hashtags') = 'array' THEN
                EXISTS (SELECT 1 FROM tweetcli_entities(p_tweet, 'hashtags') AS h
                  WHERE octet_length(h) <> length(h) OR left(tweetcli_ascii_lower(h), 40) = p_key)
                ELSE position('#' IN coalesce(p_tweet->>'caption', '')) > 0 END $$
            """,
            // Whether a change of an hour's trend counts goes beyond what the writer's tweets of that
            // hour, posted or deleted now, account for: each moves each of its hashtags by one.
            """
            CREATE OR REPLACE FUNCTION tweetcli_trend_fault(p_docs jsonb, p_me text, p_hour text, p_old jsonb,
              p_new jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
              WITH tweets AS (SELECT * FROM tweetcli_hour_tweets(p_docs, p_me, p_hour)),
              tags AS (
                SELECT key, p_old->'tags'->key AS was_entry, p_new->'tags'->key AS now_entry,
                  tweetcli_trend_count(p_old->'tags'->key) AS was, tweetcli_trend_count(p_new->'tags'->key) AS now
                FROM (SELECT jsonb_object_keys(CASE WHEN jsonb_typeof(p_old->'tags') = 'object' THEN p_old->'tags'
                    ELSE '{}' END) AS key
                  UNION SELECT jsonb_object_keys(CASE WHEN jsonb_typeof(p_new->'tags') = 'object' THEN p_new->'tags'
                    ELSE '{}' END)) AS k),
              judged AS (
                SELECT tags.*, now - was AS delta,
                  (SELECT count(*) FROM tweets WHERE n = 1 AND tweetcli_has_hashtag(tweet, key)) AS made,
                  (SELECT count(*) FROM tweets WHERE n = -1 AND tweetcli_has_hashtag(tweet, key)) AS gone
                FROM tags)
              SELECT EXISTS (SELECT 1 FROM judged WHERE (now_entry IS NOT NULL AND now = 0)
                  OR delta > made OR delta < -gone
                  OR (now > 0 AND was > 0 AND now_entry->0 IS DISTINCT FROM was_entry->0)
                  OR (now > 0 AND was = 0 AND NOT EXISTS (SELECT 1 FROM tweets, tweetcli_entities(tweet, 'hashtags') AS h
                    WHERE n = 1 AND h = now_entry->>0)))
                OR (SELECT coalesce(sum(delta), 0) FROM judged WHERE delta > 0) > (SELECT count(*) FROM tweets,
                  LATERAL (SELECT DISTINCT h FROM tweetcli_entities(tweet, 'hashtags') AS h) AS x WHERE n = 1) $$
            """,
            """
            CREATE OR REPLACE FUNCTION tweetcli_computed(me text, c text, i text, old jsonb, new jsonb, docs jsonb)
            RETURNS jsonb LANGUAGE plpgsql \(header) AS $$
            DECLARE
              v_seen text := CASE WHEN jsonb_typeof(old->'seen') = 'string' THEN old->>'seen' ELSE '' END;
              v_made integer; v_gone integer; v_unread numeric; v_base jsonb; v_lines text;
            BEGIN
              IF c = 'notification-state' THEN
                SELECT count(*) FILTER (WHERE e->'old' = 'null' AND e->'new' <> 'null'),
                  count(*) FILTER (WHERE e->'old' <> 'null' AND e->'new' = 'null' AND e->'old'->>'timestamp' > v_seen)
                  INTO v_made, v_gone
                  FROM jsonb_each(docs) AS t(k, e) WHERE e->>'c' = 'users/' || i || '/notifications';
                v_unread := greatest(0, tweetcli_int(old->'unread') + v_made - v_gone);
                IF old = 'null' THEN RETURN jsonb_build_object('unread', v_unread, 'seen', NULL); END IF;
                RETURN old || jsonb_build_object('unread', v_unread);
              END IF;
              -- user-filters: the blocker's own line, as written, among the others' as they were.
              v_base := CASE WHEN old = 'null' THEN
                '{"blocking": "", "blockedBy": "", "mutedUsers": "", "mutedTerms": {}}'::jsonb ELSE old END;
              SELECT string_agg(l, E'\\n' ORDER BY l) INTO v_lines FROM (
                SELECT l FROM unnest(string_to_array(coalesce(v_base->>'blockedBy', ''), E'\\n')) AS l
                  WHERE l <> '' AND split_part(l, ' ', 1) <> me
                UNION ALL
                SELECT l FROM unnest(string_to_array(CASE WHEN jsonb_typeof(new->'blockedBy') = 'string'
                  THEN new->>'blockedBy' ELSE '' END, E'\\n')) AS l
                  WHERE split_part(l, ' ', 1) = me) AS x;
              v_base := v_base || jsonb_build_object('blockedBy', coalesce(v_lines, ''));
              IF coalesce(v_base->>'blocking', '') = '' AND coalesce(v_base->>'blockedBy', '') = ''
                AND coalesce(v_base->>'mutedUsers', '') = '' AND coalesce(v_base->'mutedTerms', '{}') = '{}' THEN
                RETURN 'null';
              END IF;
              RETURN v_base;
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION tweetcli_check(me text, c text, i text, old jsonb, new jsonb, docs jsonb)
            RETURNS void LANGUAGE plpgsql \(header) AS $$
            DECLARE
              s text[] := string_to_array(c, '/');
              counters text[] := ARRAY['likes', 'retweets', 'replyCount', 'quotes'];
              marks text[] := ARRAY['replyToDeleted', 'quoteDeleted', 'replyToUid', 'quoteUid'];
              f text; delta numeric; net integer; v_owner text; v_other text; v_tweet jsonb;
              removed boolean := new = 'null';
              made boolean := old = 'null';
            BEGIN
              IF c = 'users' THEN
                IF i <> me THEN PERFORM tweetcli_refuse('only its owner changes a profile'); END IF;
                IF NOT removed AND (new ? 'email' OR new ? 'id' OR new->>'username' IS DISTINCT FROM
                  (SELECT username FROM tweetcli_accounts WHERE uid = me)) THEN
                  PERFORM tweetcli_refuse('a profile keeps the username it registered with, and holds no email');
                END IF;
              ELSIF c IN ('credentials', 'sessions') THEN
                -- Only an account leaving removes its own, from before the set-up.
                IF NOT removed OR (c = 'credentials' AND i <> me) OR (c = 'sessions' AND old->>'uid' IS DISTINCT FROM me)
                THEN
                  PERFORM tweetcli_refuse('passwords and sessions are the server''s to keep');
                END IF;
              ELSIF c = 'tweets' THEN
                v_owner := coalesce(old->>'uid', new->>'uid');
                IF made OR removed THEN
                  IF v_owner IS DISTINCT FROM me THEN
                    PERFORM tweetcli_refuse('a tweet is posted and deleted only by its author');
                  END IF;
                  -- A new tweet's counts start at nothing.
                  IF made AND EXISTS (SELECT 1 FROM unnest(counters) AS k
                    WHERE new ? k AND new->k IS DISTINCT FROM '0'::jsonb) THEN
                    PERFORM tweetcli_refuse('a new tweet''s counts start at 0');
                  END IF;
                  RETURN;
                END IF;
                IF EXISTS (SELECT 1 FROM unnest(counters) AS k WHERE new ? k AND NOT tweetcli_is_count(new->k)) THEN
                  PERFORM tweetcli_refuse('a count is a whole number of 0 or more');
                END IF;
                IF new->'uid' IS DISTINCT FROM old->'uid' THEN PERFORM tweetcli_refuse('a tweet keeps its author'); END IF;
                -- A count changes by what this transaction did: a like, a retweet, a reply, a quote
                -- made or taken back, whoever's tweet it is.
                FOREACH f IN ARRAY counters LOOP
                  CONTINUE WHEN new->f IS NOT DISTINCT FROM old->f;
                  delta := tweetcli_int(new->f) - tweetcli_int(old->f);
                  net := CASE f
                    WHEN 'likes' THEN tweetcli_made(docs, 'users/' || me || '/user-likes', i)
                    WHEN 'retweets' THEN tweetcli_made(docs, 'users/' || me || '/retweeted', i)
                    WHEN 'replyCount' THEN tweetcli_tweets_made(docs, me, 'replyToId', i)
                    ELSE tweetcli_tweets_made(docs, me, 'quoteId', i) END;
                  -- A tweet from before its replies or quotes were counted gets its count once.
                  IF NOT old ? f AND f IN ('replyCount', 'quotes') AND delta >= 0 AND tweetcli_int(new->f) <= net +
                    (SELECT count(*) FROM tweetcli_public WHERE collection = 'tweets' AND group_id = 'tweets'
                      AND data->>(CASE f WHEN 'replyCount' THEN 'replyToId' ELSE 'quoteId' END) = i) THEN
                    CONTINUE;
                  END IF;
                  -- A count at 0 stays there when what it counted goes.
                  CONTINUE WHEN delta = net OR (net < 0 AND delta > net AND delta <= 0 AND tweetcli_int(new->f) = 0);
                  PERFORM tweetcli_refuse('a tweet''s ' || f || ' change only with the ' || f || ' themselves');
                END LOOP;
                IF v_owner IS DISTINCT FROM me THEN
                  -- Someone else's tweet: only its counts, and the marks its answered or quoted
                  -- tweet leaves when its author deletes it in this transaction.
                  IF (new - counters - marks) IS DISTINCT FROM (old - counters - marks) THEN
                    PERFORM tweetcli_refuse('only its author edits a tweet');
                  END IF;
                  IF ((new - counters) IS DISTINCT FROM (old - counters))
                    AND NOT tweetcli_deletes_own_tweet(docs, me, old->>'replyToId')
                    AND NOT tweetcli_deletes_own_tweet(docs, me, old->>'quoteId') THEN
                    PERFORM tweetcli_refuse('only its author edits a tweet');
                  END IF;
                END IF;
              ELSIF c = 'retweets' THEN
                IF coalesce(old->>'uid', new->>'uid') IS DISTINCT FROM me
                  AND NOT (removed AND tweetcli_deletes_own_tweet(docs, me, old->>'tweetId')) THEN
                  PERFORM tweetcli_refuse('a retweet is made and taken back only by the one who retweeted');
                END IF;
              ELSIF s[1] = 'users' AND array_length(s, 1) = 3 THEN
                v_owner := s[2];
                IF s[3] IN ('user-likes', 'bookmarks', 'retweeted', 'twtxt-following') THEN
                  IF v_owner <> me AND NOT (removed AND tweetcli_deletes_own_tweet(docs, me, i)) THEN
                    PERFORM tweetcli_refuse('likes, bookmarks, retweets and follows are their owner''s alone');
                  END IF;
                  -- A like or retweet made or taken back moves the tweet's count with it (unless the
                  -- tweet is gone, or its count is at 0 already).
                  IF s[3] IN ('user-likes', 'retweeted') AND v_owner = me AND (made OR removed) THEN
                    v_tweet := docs->(jsonb_build_array('tweets', i)::text);
                    f := CASE s[3] WHEN 'user-likes' THEN 'likes' ELSE 'retweets' END;
                    IF v_tweet IS NULL THEN
                      IF EXISTS (SELECT 1 FROM tweetcli_public WHERE collection = 'tweets' AND id = i
                        AND (made OR tweetcli_int(data->f) > 0)) THEN
                        PERFORM tweetcli_refuse('a like or retweet moves its tweet''s count');
                      END IF;
                    ELSIF v_tweet->'new' <> 'null' AND tweetcli_int(v_tweet->'new'->f) - tweetcli_int(v_tweet->'old'->f)
                      <> (CASE WHEN made THEN 1 WHEN tweetcli_int(v_tweet->'old'->f) > 0 THEN -1 ELSE 0 END) THEN
                      PERFORM tweetcli_refuse('a like or retweet moves its tweet''s count');
                    END IF;
                  END IF;
                ELSIF s[3] = 'notifications' THEN
                  -- Written by the one who acted, as the action happens; withdrawn by them or read by
                  -- their recipient.
                  IF v_owner = me THEN RETURN; END IF;
                  IF (NOT made AND old->>'from' IS DISTINCT FROM me) OR (NOT removed AND new->>'from' IS DISTINCT FROM me)
                  THEN
                    PERFORM tweetcli_refuse('a notification is written only by the one who acted');
                  END IF;
                  IF NOT made AND NOT removed THEN
                    PERFORM tweetcli_refuse('a notification is written once, and withdrawn');
                  END IF;
                  IF made AND NOT (CASE new->>'type'
                    WHEN 'like' THEN tweetcli_made(docs, 'users/' || me || '/user-likes', new->>'tweetId') = 1
                    WHEN 'retweet' THEN tweetcli_made(docs, 'users/' || me || '/retweeted', new->>'tweetId') = 1
                    WHEN 'follow' THEN tweetcli_made(docs, 'following/' || me || '/user-following', v_owner) = 1
                    WHEN 'request' THEN tweetcli_made(docs, 'users/' || v_owner || '/follow-requests', me) = 1
                    WHEN 'reply' THEN tweetcli_made(docs, 'tweets', new->>'tweetId') = 1
                      AND docs->(jsonb_build_array('tweets', new->>'tweetId')::text)->'new'->>'uid' = me
                    WHEN 'quote' THEN tweetcli_made(docs, 'tweets', new->>'tweetId') = 1
                      AND docs->(jsonb_build_array('tweets', new->>'tweetId')::text)->'new'->>'uid' = me
                    WHEN 'mention' THEN tweetcli_made(docs, 'tweets', new->>'tweetId') = 1
                      AND docs->(jsonb_build_array('tweets', new->>'tweetId')::text)->'new'->>'uid' = me
                    ELSE false END) THEN
                    PERFORM tweetcli_refuse('a notification is written only with the action it tells of');
                  END IF;
                ELSIF s[3] = 'follow-requests' THEN
                  IF NOT (i = me OR (v_owner = me AND removed)) THEN
                    PERFORM tweetcli_refuse('a follow request is made by the one asking, answered by the one asked');
                  END IF;
                ELSE
                  PERFORM tweetcli_refuse('the collection ' || c || ' is not one tweetcli writes');
                END IF;
              ELSIF s[1] IN ('following', 'followers') AND array_length(s, 1) = 3
                AND s[3] = (CASE s[1] WHEN 'following' THEN 'user-following' ELSE 'user-followers' END) THEN
                -- `following/{a}/user-following/{b}` and `followers/{b}/user-followers/{a}`: a follows b.
                v_owner := CASE s[1] WHEN 'following' THEN s[2] ELSE i END;
                v_other := CASE s[1] WHEN 'following' THEN i ELSE s[2] END;
                -- A follow made or ended moves the count it belongs to (`s[2]`'s following or followers)
                -- in the same transaction, unless that count is at 0 already or was never kept.
                IF made OR removed THEN
                  f := s[1];
                  v_tweet := docs->(jsonb_build_array('user-stats', s[2])::text);
                  IF v_tweet IS NULL THEN
                    IF EXISTS (SELECT 1 FROM tweetcli_public WHERE collection = 'user-stats' AND id = s[2]
                      AND (made OR tweetcli_int(data->f) > 0)) THEN
                      PERFORM tweetcli_refuse('a follow moves its ' || f || ' count');
                    END IF;
                  ELSIF v_tweet->'old' <> 'null' AND v_tweet->'new' <> 'null'
                    AND tweetcli_int(v_tweet->'new'->f) - tweetcli_int(v_tweet->'old'->f)
                      <> (CASE WHEN made THEN 1 WHEN tweetcli_int(v_tweet->'old'->f) > 0 THEN -1 ELSE 0 END) THEN
                    PERFORM tweetcli_refuse('a follow moves its ' || f || ' count');
                  END IF;
                END IF;
                IF v_owner = me OR (removed AND v_other = me) THEN RETURN; END IF;
                IF v_other = me AND made AND tweetcli_made(docs, 'users/' || me || '/follow-requests', v_owner) = -1 THEN
                  RETURN;  -- An approved request.
                END IF;
                PERFORM tweetcli_refuse('a follow is made by the follower, or by the one followed approving a request');
              ELSIF c = 'user-stats' THEN
                IF removed THEN
                  IF i <> me THEN PERFORM tweetcli_refuse('only its owner removes a profile''s counts'); END IF;
                  RETURN;
                END IF;
                IF EXISTS (SELECT 1 FROM unnest(ARRAY['following', 'followers', 'tweets']) AS k
                  WHERE new ? k AND NOT tweetcli_is_count(new->k))
                  OR (new ? 'followingListed' AND jsonb_typeof(new->'followingListed') IS DISTINCT FROM 'boolean') THEN
                  PERFORM tweetcli_refuse('a count is a whole number of 0 or more');
                END IF;
                -- Each count changes by what this transaction did to what it counts.
                FOREACH f IN ARRAY ARRAY['following', 'followers', 'tweets'] LOOP
                  CONTINUE WHEN new->f IS NOT DISTINCT FROM old->f AND NOT made;
                  delta := tweetcli_int(new->f) - tweetcli_int(old->f);
                  net := CASE f
                    WHEN 'following' THEN tweetcli_collection_made(docs, 'following/' || i || '/user-following')
                    WHEN 'followers' THEN tweetcli_collection_made(docs, 'followers/' || i || '/user-followers')
                    ELSE tweetcli_tweets_made(docs, i, NULL, NULL) END;
                  CONTINUE WHEN delta = net OR (i = me AND made) OR (net < 0 AND delta > net AND delta <= 0);
                  PERFORM tweetcli_refuse('a profile''s ' || f || ' count changes only with what it counts');
                END LOOP;
                IF i <> me AND (new - ARRAY['following', 'followers', 'tweets', 'followingListed'])
                  IS DISTINCT FROM (CASE WHEN made THEN '{}'::jsonb
                    ELSE old - ARRAY['following', 'followers', 'tweets', 'followingListed'] END) THEN
                  PERFORM tweetcli_refuse('only its owner changes a profile''s counts');
                END IF;
              ELSIF c IN ('notification-state', 'user-filters') THEN
                RETURN;  -- The owner's own, or computed by the server (tweetcli_computed).
              ELSIF c = 'following-list' THEN
                -- Whom one follows, in one document: another changes it only with a follow of theirs
                -- made or removed in the same transaction (an approved request, a block).
                IF i <> me AND (tweetcli_made(docs, 'following/' || i || '/user-following', me) = 0
                  OR tweetcli_uids_without(new, me) IS DISTINCT FROM tweetcli_uids_without(old, me)) THEN
                  PERFORM tweetcli_refuse('only its owner changes whom they follow');
                END IF;
              ELSIF s[1] = 'terms' AND array_length(s, 1) = 3 AND s[3] = 'buckets' THEN
                -- `terms/{term}/buckets/{start}`: tweet IDs with the term, named by the first it held.
                IF NOT removed THEN
                  IF jsonb_typeof(new->'ids') IS DISTINCT FROM 'array' OR new->>'start' IS DISTINCT FROM i
                    OR jsonb_typeof(new->'start') IS DISTINCT FROM 'string' OR (new - 'start' - 'ids') <> '{}'::jsonb THEN
                    PERFORM tweetcli_refuse('a search bucket is a list of tweet IDs named by its first');
                  END IF;
                  IF jsonb_array_length(new->'ids') = 0 OR NOT tweetcli_is_id_list(new->'ids')
                    OR (jsonb_array_length(new->'ids') > 64 AND jsonb_array_length(new->'ids') >
                      CASE WHEN jsonb_typeof(old->'ids') = 'array' THEN jsonb_array_length(old->'ids') ELSE 0 END) THEN
                    PERFORM tweetcli_refuse('a search bucket holds up to 64 tweet IDs in order, each once');
                  END IF;
                END IF;
                IF tweetcli_index_net(docs, me, s[2]) IS NULL THEN
                  PERFORM tweetcli_refuse('the search index changes only with one''s own tweets, posted or deleted');
                END IF;
              ELSIF c = 'terms' THEN
                -- A term's count of tweets and its newest bucket.
                net := tweetcli_index_net(docs, me, i);
                IF net IS NULL THEN
                  PERFORM tweetcli_refuse('the search index changes only with one''s own tweets, posted or deleted');
                END IF;
                IF removed THEN
                  IF net >= 0 OR tweetcli_int(old->'tweets') + net > 0 THEN
                    PERFORM tweetcli_refuse('a search term goes only with its last tweet');
                  END IF;
                  RETURN;
                END IF;
                IF (new - ARRAY['tweets', 'open', 'openSize']) IS DISTINCT FROM
                  (CASE WHEN made THEN '{}'::jsonb ELSE old - ARRAY['tweets', 'open', 'openSize'] END)
                  OR NOT tweetcli_is_count(new->'tweets')
                  OR (new ? 'openSize' AND NOT tweetcli_is_count(new->'openSize')) THEN
                  PERFORM tweetcli_refuse('a search term holds its count of tweets and its newest bucket');
                END IF;
                delta := tweetcli_int(new->'tweets') - tweetcli_int(old->'tweets');
                IF NOT (delta = net OR (net < 0 AND delta > net AND delta <= 0)) THEN
                  PERFORM tweetcli_refuse('a search term''s count changes only with its tweets');
                END IF;
                -- Its newest bucket stays, goes with the bucket, or is one the same transaction wrote.
                IF new->'open' IS DISTINCT FROM old->'open' AND coalesce(new->'open', 'null') <> 'null'
                  AND (jsonb_typeof(new->'open') <> 'string' OR coalesce(docs->(jsonb_build_array('terms/' || i
                    || '/buckets', new->>'open')::text)->'new', 'null') = 'null') THEN
                  PERFORM tweetcli_refuse('a search term''s newest bucket is one its transaction wrote');
                END IF;
              ELSIF c = 'trend-hours' THEN
                IF NOT removed AND (jsonb_typeof(new->'tags') IS DISTINCT FROM 'object' OR (new - 'tags') <> '{}'::jsonb)
                THEN
                  PERFORM tweetcli_refuse('an hour''s trends are its hashtags'' counts');
                END IF;
                IF tweetcli_trend_fault(docs, me, i, old, new) THEN
                  PERFORM tweetcli_refuse('trends change only with one''s own tweets of that hour, posted or deleted');
                END IF;
              ELSE
                PERFORM tweetcli_refuse('the collection ' || c || ' is not one tweetcli writes');
              END IF;
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION tweetcli_apply(p_writes jsonb) RETURNS void LANGUAGE plpgsql \(header) AS $$
            DECLARE
              me text := tweetcli_uid();
              docs jsonb := '{}';
              keys text[] := '{}';
              w jsonb; k text; cur jsonb; f text; ch jsonb; n numeric; v_old jsonb; d jsonb;
              v_stamp text; v_prefix text;
            BEGIN
              IF me IS NULL AND NOT tweetcli_is_owner() THEN
                RAISE EXCEPTION 'only a signed-in account writes' USING ERRCODE = '\(PostgresAccountsSQL.notAnAccount)';
              END IF;
              IF jsonb_typeof(p_writes) IS DISTINCT FROM 'array' THEN
                PERFORM tweetcli_refuse('a transaction''s writes are a list');
              END IF;
              FOR w IN SELECT value FROM jsonb_array_elements(p_writes) LOOP
                IF jsonb_typeof(w->'c') IS DISTINCT FROM 'string' OR jsonb_typeof(w->'i') IS DISTINCT FROM 'string'
                  OR w->>'c' = '' OR w->>'i' = '' OR w->>'i' LIKE '%/%' THEN
                  PERFORM tweetcli_refuse('a write names its document by collection and ID');
                END IF;
                k := jsonb_build_array(w->'c', w->'i')::text;
                IF NOT docs ? k THEN
                  IF tweetcli_is_private(w->>'c') THEN
                    SELECT x.data INTO v_old FROM tweetcli_private x WHERE x.collection = w->>'c' AND x.id = w->>'i'
                      FOR UPDATE;
                  ELSE
                    SELECT x.data INTO v_old FROM tweetcli_public x WHERE x.collection = w->>'c' AND x.id = w->>'i'
                      FOR UPDATE;
                  END IF;
                  IF NOT FOUND THEN v_old := 'null'; END IF;
                  docs := docs || jsonb_build_object(k, jsonb_build_object('c', w->'c', 'i', w->'i', 'old', v_old,
                    'new', v_old));
                  keys := keys || k;
                END IF;
                cur := docs->k->'new';
                CASE w->>'op'
                WHEN 'set' THEN
                  IF jsonb_typeof(w->'d') IS DISTINCT FROM 'object' THEN
                    PERFORM tweetcli_refuse('a document is an object');
                  END IF;
                  cur := w->'d';
                WHEN 'delete' THEN
                  cur := 'null';
                WHEN 'update' THEN
                  IF me IS NOT NULL AND tweetcli_is_private(w->>'c') AND NOT tweetcli_owns_private(me, w->>'c', w->>'i') THEN
                    PERFORM tweetcli_refuse('another''s private documents are not updated');
                  END IF;
                  IF cur = 'null' THEN
                    RAISE EXCEPTION 'there is no document %/% to update', w->>'c', w->>'i'
                      USING ERRCODE = '\(missingDocument)';
                  END IF;
                  IF jsonb_typeof(w->'u') IS DISTINCT FROM 'object' THEN
                    PERFORM tweetcli_refuse('an update is an object of changes');
                  END IF;
                  FOR f, ch IN SELECT key, value FROM jsonb_each(w->'u') LOOP
                    IF ch ? 'value' THEN
                      cur := cur || jsonb_build_object(f, ch->'value');
                    ELSIF ch ? 'delete' THEN
                      cur := cur - f;
                    ELSIF jsonb_typeof(ch->'count') = 'number' THEN
                      n := greatest(0, greatest(0, tweetcli_int(cur->f)) + tweetcli_int(ch->'count'));
                      cur := cur || jsonb_build_object(f, least(n, 9223372036854775807));
                    ELSIF jsonb_typeof(ch->'inc') = 'number' THEN
                      n := tweetcli_int(cur->f) + tweetcli_int(ch->'inc');
                      cur := cur || jsonb_build_object(f, least(greatest(n, -9223372036854775808), 9223372036854775807));
                    ELSE
                      PERFORM tweetcli_refuse('an update sets, deletes or counts a field');
                    END IF;
                  END LOOP;
                ELSE
                  PERFORM tweetcli_refuse('a write sets, updates or deletes');
                END CASE;
                docs := jsonb_set(docs, ARRAY[k, 'new'], cur);
              END LOOP;
              -- Another's unread count and blocks, which their writer cannot read: the server
              -- computes them from what the transaction did.
              FOREACH k IN ARRAY keys LOOP
                d := docs->k;
                CONTINUE WHEN me IS NULL OR d->>'i' = me OR d->'old' = d->'new'
                  OR d->>'c' NOT IN ('notification-state', 'user-filters');
                docs := jsonb_set(docs, ARRAY[k, 'new'],
                  tweetcli_computed(me, d->>'c', d->>'i', d->'old', d->'new', docs));
              END LOOP;
              FOREACH k IN ARRAY keys LOOP
                d := docs->k;
                CONTINUE WHEN me IS NULL;  -- The owner's writes are trusted.
                -- A write that changes nothing passes, except on another's private documents, where
                -- passing would tell what they hold.
                CONTINUE WHEN d->'old' = d->'new'
                  AND NOT (tweetcli_is_private(d->>'c') AND NOT tweetcli_owns_private(me, d->>'c', d->>'i'));
                -- What is new happens now, by the server's clock as this transaction moved it: a
                -- time set ahead would keep a tweet, a retweet or a notification on top of every
                -- listing, and a tweet's ID (which search orders by) begins with its time.
                IF d->'new' <> 'null' AND d->'new' ? 'timestamp'
                  AND (d->'old' = 'null' OR d->'new'->'timestamp' IS DISTINCT FROM d->'old'->'timestamp') THEN
                  IF v_stamp IS NULL THEN
                    SELECT to_char(timestamp 'epoch' + last_ms * interval '1 millisecond',
                      'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), tweetcli_time_id(last_ms) INTO v_stamp, v_prefix
                      FROM tweetcli_clock WHERE id = 1;
                  END IF;
                  IF d->'new'->'timestamp' IS DISTINCT FROM to_jsonb(v_stamp) THEN
                    PERFORM tweetcli_refuse('what is new is dated now, by the server''s clock');
                  END IF;
                  IF d->>'c' = 'tweets' AND d->'old' = 'null' AND left(d->>'i', 8) IS DISTINCT FROM v_prefix THEN
                    PERFORM tweetcli_refuse('a new tweet''s ID begins with its time');
                  END IF;
                END IF;
                PERFORM tweetcli_check(me, d->>'c', d->>'i', d->'old', d->'new', docs);
              END LOOP;
              FOREACH k IN ARRAY keys LOOP
                d := docs->k;
                IF d->'new' = 'null' THEN
                  IF tweetcli_is_private(d->>'c') THEN
                    DELETE FROM tweetcli_private WHERE collection = d->>'c' AND id = d->>'i';
                  ELSE
                    DELETE FROM tweetcli_public WHERE collection = d->>'c' AND id = d->>'i';
                  END IF;
                ELSIF d->'new' <> d->'old' AND tweetcli_is_private(d->>'c') THEN
                  INSERT INTO tweetcli_private (collection, id, group_id, data)
                    VALUES (d->>'c', d->>'i', regexp_replace(d->>'c', '^.*/', ''), d->'new')
                    ON CONFLICT (collection, id) DO UPDATE SET data = EXCLUDED.data;
                ELSIF d->'new' <> d->'old' THEN
                  INSERT INTO tweetcli_public (collection, id, group_id, data)
                    VALUES (d->>'c', d->>'i', regexp_replace(d->>'c', '^.*/', ''), d->'new')
                    ON CONFLICT (collection, id) DO UPDATE SET data = EXCLUDED.data;
                END IF;
              END LOOP;
            END $$
            """,
        ]
    }

    static let functionSignatures = [
        "tweetcli_begin_write()", "tweetcli_refuse(text)", "tweetcli_is_owner()", "tweetcli_is_private(text)",
        "tweetcli_owns_private(text, text, text)",
        "tweetcli_int(jsonb)", "tweetcli_is_count(jsonb)", "tweetcli_uids_without(jsonb, text)",
        "tweetcli_made(jsonb, text, text)",
        "tweetcli_tweets_made(jsonb, text, text, text)", "tweetcli_collection_made(jsonb, text)",
        "tweetcli_deletes_own_tweet(jsonb, text, text)", "tweetcli_time_id(bigint)", "tweetcli_ascii_lower(text)",
        "tweetcli_entities(jsonb, text)",
        "tweetcli_may_index(jsonb, text)", "tweetcli_index_net(jsonb, text, text)", "tweetcli_is_id_list(jsonb)",
        "tweetcli_trend_count(jsonb)", "tweetcli_hour_tweets(jsonb, text, text)", "tweetcli_has_hashtag(jsonb, text)",
        "tweetcli_trend_fault(jsonb, text, text, jsonb, jsonb)",
        "tweetcli_computed(text, text, text, jsonb, jsonb, jsonb)",
        "tweetcli_check(text, text, text, jsonb, jsonb, jsonb)",
        "tweetcli_apply(jsonb)",
    ]
    static let userFunctions = ["tweetcli_begin_write()", "tweetcli_apply(jsonb)"]
}
