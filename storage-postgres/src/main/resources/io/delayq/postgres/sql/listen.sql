-- listen: subscribes the store's dedicated connection to its two channels (Notifications): delayq_wake, which the
-- statements that move a lane's earliest run time earlier NOTIFY, and delayq_broadcast (publish_broadcast.sql).
LISTEN delayq_wake;
LISTEN delayq_broadcast
