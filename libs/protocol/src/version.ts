// Versions carried on every wire message so a controller/helper mismatch is detectable.

/** Bumped on any incompatible change of an operation or result shape. */
export const PROTOCOL_VERSION = 2 as const;

/** The Driver identity recorded in every host marker. */
export const DRIVER_ID = 'compute-ssh' as const;
export const DRIVER_IMPLEMENTATION = 'occ/ssh' as const;
