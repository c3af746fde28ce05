-- register_topics: registers topics before their jobs are written, so that a crash in between never hides a topic
-- that has jobs. A topic registered already is left as it is.
-- Binds: :topics (array, sorted so that concurrent calls lock rows in one order).
INSERT INTO delayq_topics (topic) SELECT unnest(:topics::text[]) ON CONFLICT (topic) DO NOTHING
