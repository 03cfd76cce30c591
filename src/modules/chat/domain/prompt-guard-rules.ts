import vocabulary from './guard-data/phrase-vocabulary.json';
import { anyWord, phrase, WORD, type Phrase } from './prompt-guard-phrases';

/**
 * Injection and jailbreak phrase rules, matched against the `words` view (lower case, look-alikes
 * folded, whitespace collapsed); their vocabulary is data (guard-data/phrase-vocabulary.json). Each rule is a phrase that only makes sense as an attack, not a keyword:
 * "ignore" alone is everyday code and English; "ignore all previous instructions" is not.
 * Phrase openings are plain word lists (see prompt-guard-phrases); the rest is a pattern source
 * in which a space stands for a short gap.
 */

export type PatternCategory = 'injection' | 'jailbreak';

export interface PatternRule {
  /** Stable id for logs and metrics, never shown to the client. */
  readonly id: string;
  readonly category: PatternCategory;
  readonly phrases: readonly Phrase[];
  /** Something else the same text must contain for a phrase to be an attack. */
  readonly context?: RegExp;
  /** A phrase right after this (tested on the text before it) does not count. */
  readonly notAfter?: RegExp;
}

// "never reveal your system prompt", "do not ever ignore the system instructions"; one word may sit
// between the negation and the phrase, no more ("don't hesitate to reveal ..." is not negated).
const NEGATION = /(?:(?:^|[^\p{L}])(?:not|never|no)|n't)(?: \p{L}+)? ?$/u;

// ---------------------------------------------------------------------------------------------
// Vocabulary (guard-data/phrase-vocabulary.json). Lists are phrase openings; alternatives are
// pattern sources used further in.

const { lists, alternatives, overridesAbroad } = vocabulary;

/** One group of pattern-source alternatives. */
function anyOf(sources: readonly string[]): string {
  return `(?:${sources.join('|')})`;
}

const IGNORE = lists.ignore;
const DROP = lists.drop;
const SUPERSEDE = lists.supersede;
const REVEAL = lists.reveal;
const YOU_ARE = lists['you-are'];
const ENABLE = lists.enable;

const QUALIFIER = anyOf(alternatives.qualifier);
const INSTRUCTIONS = anyOf(alternatives.instructions);
const PROMPT = anyOf(alternatives.prompt);
const PROMPT_ADJECTIVE = anyOf(alternatives['prompt-adjective']);
const MODE = anyOf(alternatives.mode);
const RULES = anyOf(alternatives.rules);
const UNFILTERED_PERSONA =
  '(?:(?:a|an|the|my) )?(?:(?:unfiltered|uncensored|unrestricted|amoral|unethical|immoral|non-moral|jailbroken|unaligned|evil|rogue) (?:(?:and|or) )?){1,3}(?:unbiased )?(?:ai|chatbot|assistant|language model|model|llm|version|persona|mode|confidant|gpt|bot|twin|alter ego)';
// Words that make "free of the rules" or "does not have to follow the rules" about an AI ...
const AI_CONTEXT = anyWord(lists['ai-words']);
// ... or "no content filters" about the model addressed (or told to answer) rather than a CMS.
const PERSONA_CONTEXT = anyWord([...lists['ai-words'], ...lists['persona-words']]);

// ---------------------------------------------------------------------------------------------
// The same override ("ignore all previous instructions") in other languages.

interface OverrideVocabulary {
  readonly verbs: readonly string[];
  /** "all" */
  readonly every: readonly string[];
  /** "your" */
  readonly yours: readonly string[];
  /** definite articles */
  readonly the: readonly string[];
  /** "previous", "above" where they precede the noun (Germanic, Slavic) ... */
  readonly before?: readonly string[];
  /** ... or follow it (Romance). */
  readonly after?: readonly string[];
  readonly nouns: readonly string[];
}

/**
 * "ignore all (the) instructions", "ignore your instructions", "ignore the previous instructions",
 * "ignore the instructions above": a bare "ignore the rules" needs one of all / your / a qualifier.
 */
function override(vocabulary: OverrideVocabulary): Phrase {
  const [every, yours, the, nouns] = [vocabulary.every, vocabulary.yours, vocabulary.the, vocabulary.nouns].map(anyOf);
  const before = vocabulary.before && anyOf(vocabulary.before);
  const after = vocabulary.after && anyOf(vocabulary.after);
  const forms = [
    `${every} (?:(?:${the}|${yours}) )?${before ? `(?:${before} )?` : ''}${nouns}`,
    `${yours} ${nouns}`,
    ...(before ? [`(?:(?:${the}|${yours}) )?${before} ${nouns}`] : []),
    ...(after ? [`(?:(?:${the}|${yours}) )?${nouns} ${after}`] : []),
  ];
  return phrase(vocabulary.verbs, anyOf(forms));
}

const OVERRIDES_ABROAD: ReadonlyArray<readonly [string, OverrideVocabulary]> = Object.entries(overridesAbroad);

// "without rules" in another language, said of the model.
const RULES_ABROAD = anyOf(alternatives['rules-abroad']);
const PERSONA_ABROAD = anyWord(lists['persona-abroad']);

// ---------------------------------------------------------------------------------------------

export const PATTERN_RULES: readonly PatternRule[] = [
  {
    id: 'injection.ignore-instructions',
    category: 'injection',
    phrases: [
      phrase(
        IGNORE,
        `(?:${[
          `(?:(?:all|any|every|each|of|the|these|those|such) ){0,3}(?:${QUALIFIER} ){1,3}(?:(?:and|or|&) (?:${QUALIFIER} ){1,3})?${INSTRUCTIONS}`,
          `(?:all (?:of )?)?your (?:${WORD} ){0,2}?${INSTRUCTIONS}`,
          `(?:all (?:of )?)?(?:the|its|openai's|anthropic's|google's) (?:content|safety|usage) polic(?:y|ies)`,
          // "all rules" alone is too common around linters ("make eslint ignore all rules here").
          `all (?:of )?(?:the |these |those )?(?:instructions|prompts|directives|guidelines)`,
        ].join('|')})`,
      ),
    ],
    notAfter: NEGATION,
  },
  {
    id: 'injection.ignore-above-and-do',
    category: 'injection',
    phrases: [
      phrase(
        DROP,
        '(?:all |everything |the )?(?:above|previous|preceding|prior|before)(?: (?:text|message|content|input))? (?:and|then|now|instead)(?: (?:and|then|now|instead))? (?:just )?(?:say|print|output|write|respond|reply|answer|tell|reveal|translate|repeat|follow|obey|act|pretend|return|show|list)',
      ),
    ],
  },
  {
    id: 'injection.disregard-everything',
    category: 'injection',
    phrases: [
      phrase(
        DROP,
        "(?:about )?(?:everything|all|anything) (?:(?:that )?you(?:'ve| have)? (?:been |were |was )?(?:told|taught|instructed|given|programmed)|(?:written |said |stated )?(?:above|before (?:this|now)|so far|previously))",
      ),
    ],
  },
  {
    id: 'injection.overrides-instructions',
    category: 'injection',
    phrases: [phrase(SUPERSEDE, `(?:all|any|your)(?: of)?(?: the)? (?:${QUALIFIER} ){0,2}${INSTRUCTIONS}`)],
  },
  {
    id: 'injection.instructions-revoked',
    category: 'injection',
    phrases: [
      phrase(
        ['previous', 'prior', 'above', 'preceding', 'system', 'safety', 'original', 'initial', 'developer'],
        '(?:instructions|rules|guidelines|directives|system prompt|restrictions) (?:are|is|have been|has been) (?:now |hereby )?(?:void|revoked|cancell?ed|null|obsolete|overridden|lifted|disabled|suspended|deactivated|no longer (?:valid|in effect|apply|applicable))',
      ),
    ],
  },
  {
    id: 'injection.new-instructions',
    category: 'injection',
    phrases: [phrase(['your'], '(?:real|actual|true) (?:instructions|directives|orders|system prompt|programming) (?:are|is|:)')],
  },
  {
    id: 'injection.new-system-prompt',
    category: 'injection',
    phrases: [phrase(['new', 'updated', 'real'], 'system (?:prompt|message|instructions?) ?:', { open: true })],
    // "here is my new system prompt: ..." is a developer asking for help with theirs.
    notAfter: /(?:^|[^\p{L}])(?:my|our|this|the|a|an) ?$/u,
  },
  {
    id: 'injection.reveal-prompt',
    category: 'injection',
    phrases: [
      phrase(
        REVEAL,
        `(?:${[
          `(?:me |us )?(?:(?:all|of|the|text|contents?|wording|${PROMPT_ADJECTIVE}) ){0,4}your (?:${PROMPT_ADJECTIVE} ){0,3}${PROMPT}`,
          `(?:me |us )?(?:all (?:of )?)?the (?:${PROMPT_ADJECTIVE} ){1,3}(?:system )?(?:prompt|instructions|system message)`,
          '(?:back )?(?:everything|all (?:of )?(?:the )?(?:text|words)) (?:above|before this)',
          '(?:back )?the (?:text|words|content|lines|prompt|instructions) above (?:starting|beginning|verbatim|word for word|this line|from the start)',
        ].join('|')})`,
      ),
      phrase(["what's", 'what is', 'what are', 'what were', 'what was'], `(?:in )?your (?:(?:${PROMPT_ADJECTIVE}|current|system) ){0,2}(?:system prompt|system message|prompt|instructions)`),
      phrase(['what your'], `(?:(?:${PROMPT_ADJECTIVE}|current|system) ){0,2}(?:system prompt|system message|prompt|instructions) (?:says?|is|are|contains?|looks like)`),
    ],
    notAfter: NEGATION,
  },
  {
    id: 'injection.role-token',
    category: 'injection',
    phrases: [
      phrase(['<|'], '(?:im_start|im_end|im_sep|system|user|assistant|start_header_id|end_header_id|eot_id|begin_of_text)\\|>', { open: true }),
      phrase(['[inst]', '[/inst]', '<<sys>>', '<</sys>>'], '', { open: true }),
    ],
  },
  {
    id: 'injection.fake-system-header',
    category: 'injection',
    phrases: [
      phrase(['#'], '(?:system|sys|admin|developer)(?: (?:prompt|message|instructions?|override|note))? ?:', { open: true }),
      phrase(['['], '(?:system|admin|developer) (?:message|prompt|note|override|instructions?|notice) ?\\]', { open: true }),
    ],
  },
  {
    id: 'injection.system-override',
    category: 'injection',
    phrases: [
      phrase(['system', 'admin', 'developer', 'root', 'sudo'], 'override ?[:!\\]]', { open: true }),
      phrase(['admin', 'administrator', 'developer', 'root', 'sudo', 'system'], '(?:access|authori[sz]ation|privileges?) (?:granted|enabled|unlocked|confirmed)'),
    ],
  },
  {
    id: 'injection.role-reset',
    category: 'injection',
    phrases: [
      phrase(
        YOU_ARE,
        `(?:(?:now |hereby )?no longer (?:an? (?:ai|assistant|language model|chatbot)|chatgpt|claude|gpt|(?:bound|restricted|limited|constrained) by (?:(?:any|the|your|openai's) )?${RULES})|now (?:free|unrestricted|unfiltered|uncensored|unbound|jailbroken|liberated|unleashed))`,
      ),
    ],
  },
  ...OVERRIDES_ABROAD.map(([language, vocabulary]): PatternRule => ({
    id: `injection.ignore-instructions.${language}`,
    category: 'injection',
    phrases: [override(vocabulary)],
  })),

  { id: 'jailbreak.dan', category: 'jailbreak', phrases: [phrase(['do anything now'], '')], context: anyWord(['dan']) },
  {
    id: 'jailbreak.mode-switch',
    category: 'jailbreak',
    phrases: [phrase(YOU_ARE, `(?:now )?in ${MODE} mode`), phrase(ENABLE, `${MODE} mode`), phrase(['jailbreak mode', 'jailbroken mode'], '')],
  },
  {
    id: 'jailbreak.jailbroken',
    category: 'jailbreak',
    phrases: [phrase(YOU_ARE, '(?:now )?jailbroken'), phrase(['you have been jailbroken'], '')],
  },
  {
    id: 'jailbreak.developer-mode',
    category: 'jailbreak',
    phrases: [
      phrase(['chatgpt', 'gpt', 'ai', 'assistant', 'language model', 'llm', 'chatbot', 'bot', 'claude', 'gemini', 'you'], `(?:${WORD} ){0,2}(?:with|in) developer mode`),
      phrase(['developer mode'], '(?:never|always|can|ignores|has no|will)'),
      phrase(['act as', 'pretend to be', 'simulate', 'emulate', ...YOU_ARE], `(?:${WORD} ){0,3}developer mode`),
    ],
  },
  {
    id: 'jailbreak.no-guidelines',
    category: 'jailbreak',
    phrases: [
      phrase(
        [
          'without',
          'with no',
          'no',
          'free of',
          'free from',
          'no longer bound by',
          'not bound by',
          'unbound by',
          'unconstrained by',
          'never trained with',
          'never trained on',
          'never given',
          'never been trained with',
          'never been trained on',
          'never been given',
          "doesn't have",
          'does not have',
          "don't have",
          'do not have',
          'has no',
          'have no',
          'had no',
          'lacks',
          'lacking',
          'devoid of',
        ],
        `(?:(?:any|all|your|its|the) ){0,2}(?:(?:ethical|moral|safety|content|openai's|openai|anthropic's|anthropic|programmed|built-in) (?:(?:or|and|/) )?){1,3}${RULES}`,
      ),
    ],
    context: PERSONA_CONTEXT,
  },
  {
    id: 'jailbreak.pretend-no-rules',
    category: 'jailbreak',
    phrases: [
      phrase(
        ['pretend', 'imagine', 'assume', 'suppose', 'act as if', 'act like', 'roleplay', 'role-play', "let's say", 'from now on'],
        `(?:that )?you (?:have|had|are|were) (?:no|zero|not bound by|free of|free from|without) (?:any )?(?:${WORD} )?${RULES}`,
      ),
    ],
  },
  {
    id: 'jailbreak.broken-free',
    category: 'jailbreak',
    phrases: [
      // "free of restrictions on commercial use" is licence talk; "free of all restrictions" is not.
      phrase(
        ['broken free', 'broke free', 'break free', 'breaks free', 'breaking free', 'freed', 'free', 'liberated', 'released'],
        '(?:of|from) (?:all|any|every|the|its|their|your) (?:(?:typical|usual|normal|of) )?(?:confines|restrictions|rules|filters|limitations|constraints|shackles|chains|guidelines|polic(?:y|ies)|programming|censorship)',
      ),
    ],
    context: AI_CONTEXT,
  },
  {
    id: 'jailbreak.need-not-follow',
    category: 'jailbreak',
    phrases: [
      phrase(
        ["doesn't", 'does not', "don't", 'do not', 'never', 'no longer', "won't", 'will not'],
        "(?:have|need) to (?:abide by|follow|obey|comply with|adhere to|respect) (?:(?:any|the|its|their|your|openai's|content) ){0,2}(?:rules|polic(?:y|ies)|guidelines|restrictions|ethics|principles)(?! of)",
      ),
    ],
    context: AI_CONTEXT,
  },
  {
    id: 'jailbreak.unfiltered-persona',
    category: 'jailbreak',
    phrases: [
      phrase(['act as', 'acting as', ...YOU_ARE, 'you will be', 'become', 'pretend to be', 'roleplay as', 'role-play as', 'replaced by', ...ENABLE, 'simulate', 'emulate'], UNFILTERED_PERSONA),
      phrase(['respond', 'answer', 'reply', 'behave', 'talk', 'write'], `(?:exactly |only )?(?:as|like) ${UNFILTERED_PERSONA}`),
    ],
  },
  {
    id: 'jailbreak.bypass-filters',
    category: 'jailbreak',
    phrases: [
      phrase(
        ['bypass', 'circumvent', 'evade', 'get around', 'get past', 'disable', 'turn off', 'switch off', 'deactivate', 'remove', 'ignore', 'break'],
        "(?:all |any |of )?(?:your|its|the model's|chatgpt's|the ai's|the assistant's) (?:own )?(?:(?:content|safety|ethical|moderation) (?:(?:and|or|&) )?){0,3}(?:filters?|filtering|guardrails?|safeguards?|moderation|safety (?:features|measures|protocols|training|settings)|censorship|restrictions|content polic(?:y|ies))",
      ),
    ],
  },
  {
    id: 'jailbreak.decode-and-obey',
    category: 'jailbreak',
    phrases: [
      phrase(
        ['decode', 'decrypt', 'deobfuscate', 'unscramble', 'reverse', 'translate', 'convert', 'interpret'],
        `(?:this|the following|it|that|the)(?: ${WORD}){0,3} (?:and|then)(?: then)? (?:follow|execute|obey|carry out|act on|comply with|do what it says|perform)`,
      ),
    ],
  },
  {
    id: 'jailbreak.no-rules-abroad',
    category: 'jailbreak',
    phrases: [phrase(['ohne', 'sin', 'sans', 'senza', 'sem', 'без'], `(?:${WORD} ){0,2}${RULES_ABROAD}`)],
    context: PERSONA_ABROAD,
  },
];
