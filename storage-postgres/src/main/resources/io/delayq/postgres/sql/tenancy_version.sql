-- tenancy_version: the version of the last tenant or token change (0 before the first): what instances poll to know
-- when to read the tenancy again. One row of one row.
-- Returns version.
SELECT version FROM delayq_tenancy
