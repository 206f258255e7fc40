// Every section of the campaign, in the order their targets, counts and summary lines are listed.
import { badInput } from '../bad-input/section.js';
import { crashPoints, injectedErrors } from '../crash-points/section.js';
import { faults } from '../faults/section.js';
import { hostile } from '../hostile/section.js';
import { hostileTenants } from '../hostile-tenants/section.js';
import { kill } from '../kill/section.js';
import { races } from '../races/section.js';
import { secrets } from '../secrets/section.js';
import type { Section } from './section.js';

const SECTION_TABLE = [kill, faults, races, badInput, hostile, secrets, crashPoints, injectedErrors, hostileTenants] as const;

type Entry = (typeof SECTION_TABLE)[number];
export type SectionName = Entry['name'];
type SummaryOf<E> = E extends Section<string, string, infer Summary> ? Summary : never;

/** What each section that ran produced, under its key. */
export type SectionResults = { [E in Entry as E['key']]?: SummaryOf<E> };

/** The table as one array type, for code that handles any section. */
export const ANY_SECTIONS: readonly Section<SectionName, string, unknown>[] = SECTION_TABLE;
