-- put_settings: writes a topic's settings whatever they were, registering the topic when it is new.
-- Binds: :topic, :settings (JSON).
INSERT INTO delayq_topics (topic, settings) VALUES (:topic, :settings::jsonb)
ON CONFLICT (topic) DO UPDATE SET settings = excluded.settings
