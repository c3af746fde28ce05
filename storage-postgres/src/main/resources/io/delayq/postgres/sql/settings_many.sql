-- settings_many: the settings of several topics in one round trip (the primary key). A topic without a row or without
-- settings has no row here; the caller answers it with empty settings.
-- Binds: :topics.
-- Returns topic, settings (JSON text) for the topics that have settings.
SELECT topic, settings::text AS settings FROM delayq_topics WHERE topic = ANY (:topics::text[]) AND settings IS NOT NULL
