-- settings: writes a topic's settings only if they are still what the caller read (compare-and-set, mirrors
-- settings.lua), so that two concurrent updates of different fields cannot undo each other: the loser reads again and
-- applies its change anew.
-- Binds: :topic, :expected (the JSON read_settings.sql returned, or null when there were none), :settings (JSON).
-- Returns one row (true) when written, none when the settings changed meanwhile (nothing written).
INSERT INTO delayq_topics AS t (topic, settings) VALUES (:topic, :settings::jsonb)
ON CONFLICT (topic) DO UPDATE SET settings = excluded.settings
WHERE t.settings IS NOT DISTINCT FROM :expected::jsonb
RETURNING true
