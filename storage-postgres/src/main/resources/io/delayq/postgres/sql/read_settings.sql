-- read_settings: a topic's settings, as JSON text (what settings.sql compares with).
-- Binds: :topic.
-- Returns one row, or none when the topic has no settings.
SELECT settings::text FROM delayq_topics WHERE topic = :topic AND settings IS NOT NULL
