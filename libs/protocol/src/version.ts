// Versions carried on every wire message so a controller/helper mismatch is detectable.

/** Bumped on any change of an envelope, result or line shape: the release contract test fails otherwise. */
export const PROTOCOL_VERSION = 6 as const;

/** The Driver identity recorded in every host marker. */
export const DRIVER_ID = 'compute-ssh' as const;
export const DRIVER_IMPLEMENTATION = 'occ/ssh' as const;
