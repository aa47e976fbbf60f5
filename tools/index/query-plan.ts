/**
 * What a search query asks for, in the index's own terms: its concepts (the distinct words it
 * uses, each weighted by how rare it is in the index), and the terms that stand for them —
 * the words themselves, names written as one word (`cookie jar` meets `cookiejar`, `create
 * token` meets `createToken`), a word the index only knows in pieces (`autocomplete` → auto,
 * complete) and curated synonyms (with a lower weight). Knows nothing about how the index is
 * stored: it asks a vocabulary and a rarity measure.
 */
import { phraseBridges, synonymsOf } from "./synonyms.js";
import { isStopword, splitIdentifier, stem } from "./tokenize.js";

/** What query planning needs of an index. */
export interface Vocabulary {
  /** The term's id, if the index holds it. */
  lookup(term: string): number | undefined;
  /** How rare the term is (BM25's idf; higher is rarer). */
  idf(termId: number): number;
}

export interface QueryConcept {
  /** The word as the query wrote it (lower-cased). */
  word: string;
  stem: string;
  /** Its weight in coverage: the rarity of its rarest form in the index (0 when the index lacks it). */
  weight: number;
  /** Its bit in term and chunk masks when a term is the word (or another spelling of it). */
  bit: number;
  /** Its bit when a term is a word for a related thing (worth half). */
  relatedBit: number;
}

export interface QueryPlan {
  concepts: QueryConcept[];
  /** Term id → weight in BM25, and the bits of the concepts it stands for. */
  weights: Map<number, number>;
  masks: Map<number, number>;
  /** The sum of the concepts' weights. */
  totalWeight: number;
  /** Concept forms for matching names: form → bit and credit (1 for the word, less for a synonym). */
  forms: Map<string, { bit: number; credit: number }>;
  /** The query asks about tests, fixtures or examples (they are not put below other files then). */
  asksForTests: boolean;
  /** Things the caller should know (a shortened query, ignored words). */
  notes: string[];
  /** Words in scripts other than Latin, which the index does not hold. */
  foreign: string[];
}

/** Concepts a query keeps (two bits each in a 32-bit mask). */
export const MAX_QUERY_TERMS = 16;
const RELATED_SHIFT = 16;
const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+/g;
const NON_LATIN_WORD = /[^\s\x00-\x7f]+/g;
const TEST_WORDS = /^(tests?|testing|specs?|fixtures?|mocks?|examples?|benchmarks?|unittests?)$/;
/**
 * Words of questions that code does not use to name things (on top of the index's stopwords):
 * they would only match by chance.
 */
const QUESTION_WORDS = new Set(
  "about above across again against all also any anything another both but during each either else ever every few given has have having here however just least less like many may might more most much must neither no nor not now off once one ones only other over own per please same several shall since some something such than then there these they those though through thus too under until upon very via whether while whose will within without would yet".split(
    " ",
  ),
);
/** Longest run of query words tried as one name. */
const LONGEST_JOIN = 4;
/** Weight of a run of query words found as one name (it says more than the words apart: they are together, in order). */
export const JOINED_WEIGHT = { value: 1 };
/** Bridges to words more common than this (BM25 idf; about one chunk in ten holds them) are left out. */
const COMMON_BRIDGE_IDF = Math.log(10);
/** Weight of the pieces of a query word the index knows only in pieces. */
const PIECE_WEIGHT = 0.7;

/** One word of the query in order: its lower-cased text, and its concept when it is not a stopword. */
interface QueryWord {
  text: string;
  concept?: QueryConcept;
}

export function planQuery(vocabulary: Vocabulary, query: string): QueryPlan {
  const notes: string[] = [];
  const foreign = [...new Set(query.match(NON_LATIN_WORD) ?? [])];
  if (foreign.length > 0) {
    notes.push(
      `Words in other scripts are not indexed and were left out: ${foreign.slice(0, 5).join(" ")}${foreign.length > 5 ? " …" : ""}. Search with the identifiers or English words the code uses.`,
    );
  }
  const identifiers = query.match(IDENTIFIER) ?? [];
  const words: QueryWord[] = [];
  const byStem = new Map<string, QueryConcept>();
  const wholes: Array<{ text: string; from: number; to: number }> = [];
  for (const identifier of identifiers) {
    if (identifier.length > 64) continue;
    const parts = splitIdentifier(identifier);
    const from = words.length;
    for (const part of parts) {
      if (part.length < 2 || isStopword(part) || QUESTION_WORDS.has(part)) {
        words.push({ text: part });
        continue;
      }
      const stemmed = stem(part);
      let concept = byStem.get(stemmed);
      if (concept === undefined) byStem.set(stemmed, (concept = { word: part, stem: stemmed, weight: 0, bit: 0, relatedBit: 0 }));
      words.push({ text: part, concept });
    }
    if (parts.length > 1) wholes.push({ text: identifier.toLowerCase(), from, to: words.length });
  }
  const concepts = keepDistinctive(vocabulary, [...byStem.values()], notes, query);
  const plan: QueryPlan = {
    concepts,
    weights: new Map(),
    masks: new Map(),
    totalWeight: 0,
    forms: new Map(),
    asksForTests: words.some((word) => TEST_WORDS.test(word.text)),
    notes,
    foreign,
  };
  const addTerm = (term: string, weight: number, mask: number) => {
    const id = vocabulary.lookup(term);
    if (id === undefined || mask === 0) return false;
    plan.weights.set(id, Math.max(plan.weights.get(id) ?? 0, weight));
    plan.masks.set(id, (plan.masks.get(id) ?? 0) | mask);
    return true;
  };
  for (const concept of concepts) {
    const known = [concept.word, concept.stem].filter((form) => addTerm(form, 1, concept.bit));
    plan.forms.set(concept.word, { bit: concept.bit, credit: 1 });
    plan.forms.set(concept.stem, { bit: concept.bit, credit: 1 });
    if (known.length === 0) for (const piece of piecesOf(vocabulary, concept.word)) addTerm(piece, PIECE_WEIGHT, concept.bit);
    for (const bridge of synonymsOf(concept.stem)) {
      const bit = bridge.credit >= 0.9 ? concept.bit : concept.relatedBit;
      const id = vocabulary.lookup(bridge.stem);
      // A bridge to a word that most chunks hold tells little apart and costs the most to score.
      if (id === undefined || vocabulary.idf(id) < COMMON_BRIDGE_IDF) continue;
      if (addTerm(bridge.stem, bridge.weight, bit) && !plan.forms.has(bridge.stem)) plan.forms.set(bridge.stem, { bit, credit: bridge.credit });
    }
  }
  addJoinedNames(words, wholes, addTerm);
  for (let position = 0; position + 1 < words.length; position++) {
    const [first, second] = [words[position]!, words[position + 1]!];
    const mask = (first.concept?.bit ?? 0) | (second.concept?.bit ?? 0);
    for (const bridge of phraseBridges(first.text, second.text)) {
      if (!addTerm(bridge.stem, bridge.weight, mask) || plan.forms.has(bridge.stem)) continue;
      // A name part that is the phrase's abbreviation stands for both its words.
      plan.forms.set(bridge.stem, { bit: mask, credit: bridge.credit });
    }
  }
  plan.totalWeight = concepts.reduce((sum, concept) => sum + concept.weight, 0);
  return plan;
}

/** Gives concepts their weights and bits; a long query keeps its most distinctive ones. */
function keepDistinctive(vocabulary: Vocabulary, concepts: QueryConcept[], notes: string[], query: string): QueryConcept[] {
  for (const concept of concepts) {
    const ids = [concept.word, concept.stem, ...piecesOf(vocabulary, concept.word)].map((form) => vocabulary.lookup(form)).filter((id) => id !== undefined);
    concept.weight = ids.length === 0 ? 0 : Math.max(...ids.map((id) => vocabulary.idf(id)));
  }
  let kept = concepts;
  if (concepts.length > MAX_QUERY_TERMS) {
    const best = new Set([...concepts].sort((left, right) => right.weight - left.weight).slice(0, MAX_QUERY_TERMS));
    kept = concepts.filter((concept) => best.has(concept));
    notes.push(`The query had ${concepts.length} distinct terms (${query.length} characters); the ${MAX_QUERY_TERMS} most distinctive were used.`);
  }
  kept.forEach((concept, position) => {
    concept.bit = 1 << position;
    concept.relatedBit = 1 << (position + RELATED_SHIFT);
  });
  return kept;
}

/** A word the index does not hold, split into two pieces it does (`autocomplete` → auto, complete). */
function piecesOf(vocabulary: Vocabulary, word: string): string[] {
  if (vocabulary.lookup(word) !== undefined || vocabulary.lookup(stem(word)) !== undefined || word.length < 6) return [];
  let best: string[] = [];
  for (let cut = 3; cut <= word.length - 3; cut++) {
    const pieces = [word.slice(0, cut), word.slice(cut)].map((piece) => (vocabulary.lookup(piece) !== undefined ? piece : stem(piece)));
    if (pieces.every((piece) => vocabulary.lookup(piece) !== undefined) && Math.min(cut, word.length - cut) > Math.min(...best.map((piece) => piece.length), 0)) best = pieces;
  }
  return best;
}

/**
 * Runs of two to four query words written as one name in the index (`cookie jar` →
 * `cookiejar`, `create token` → `createtoken`, `cookie jar from dict` → `cookiejar_from_dict`):
 * a match stands for all the run's concepts, and only in the query's order. Two words (with at
 * most one other word between them) are also tried in their other spellings (`define … token`
 * → `createtoken`), at a lower weight.
 */
function addJoinedNames(words: QueryWord[], wholes: Array<{ text: string; from: number; to: number }>, addTerm: (term: string, weight: number, mask: number) => boolean): void {
  const maskOf = (from: number, to: number) => words.slice(from, to).reduce((mask, word) => mask | (word.concept?.bit ?? 0), 0);
  for (const whole of wholes) addTerm(whole.text, 1, maskOf(whole.from, whole.to));
  for (let from = 0; from < words.length; from++) {
    for (let to = from + 2; to <= Math.min(words.length, from + LONGEST_JOIN); to++) {
      // A run may begin or end with a common word (`first set` → `firstSet`), but needs one of the query's concepts.
      const mask = maskOf(from, to);
      if (mask === 0) continue;
      for (const joined of joinings(words.slice(from, to).map((word) => word.text))) {
        if (addTerm(joined, JOINED_WEIGHT.value, mask) || addTerm(stem(joined), JOINED_WEIGHT.value, mask)) break;
      }
    }
  }
  // Only the concepts the plan kept (a long query drops some): they have bits.
  const concepts = words.map((word) => word.concept).filter((concept) => concept !== undefined && concept.bit !== 0);
  for (let first = 0; first < concepts.length; first++) {
    for (let second = first + 1; second <= Math.min(concepts.length - 1, first + 2); second++) {
      const left = concepts[first]!;
      const right = concepts[second]!;
      if (left === right) continue;
      const mask = left.bit | right.bit;
      const spellings = (concept: QueryConcept) => [{ text: concept.word, weight: 1 }, ...synonymsOf(concept.stem).map((bridge) => ({ text: bridge.stem, weight: bridge.weight }))];
      for (const head of spellings(left)) {
        for (const tail of spellings(right)) {
          const weight = Math.min(head.weight, tail.weight);
          if (weight === 1 && second === first + 1) continue;
          addTerm(head.text + tail.text, weight, mask) || addTerm(`${head.text}_${tail.text}`, weight, mask);
        }
      }
    }
  }
}

/** Longest query (in words) that is also tried as one whole name. */
const LONGEST_NAME_QUERY = 6;

/**
 * The ways a query of two to six words could be one name written as words (`cookie jar from
 * dict` → `cookiejar_from_dict`, `create token` → `createtoken`), lower-cased.
 */
export function nameSpellings(query: string): string[] {
  const words = (query.match(IDENTIFIER) ?? []).flatMap((identifier) => splitIdentifier(identifier));
  if (words.length < 2 || words.length > LONGEST_NAME_QUERY || /[^\w\s-]/.test(query)) return [];
  return joinings(words);
}

/** The ways to write words as one name: all joined, all with `_`, and the mixes between. */
function joinings(texts: string[]): string[] {
  let results = [texts[0]!];
  for (const text of texts.slice(1)) results = results.flatMap((prefix) => [prefix + text, `${prefix}_${text}`]);
  return results;
}
