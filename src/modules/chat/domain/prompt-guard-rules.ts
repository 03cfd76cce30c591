import { anyWord, phrase, WORD, type Phrase } from './prompt-guard-phrases';

/**
 * Injection and jailbreak rules, matched against the `words` view (lower case, look-alikes folded,
 * whitespace collapsed). Each rule is a phrase that only makes sense as an attack, not a keyword:
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
// English vocabulary. Lists are phrase openings; strings are pattern sources used further in.

const IGNORE = ['ignore', 'ignoring', 'disregard', 'disregarding', 'forget', 'forgetting', 'discard', 'abandon', 'set aside', 'put aside', 'throw out', 'stop following', 'no longer follow'];
const DROP = ['ignore', 'disregard', 'forget'];
const SUPERSEDE = ['override', 'overrides', 'overriding', 'supersede', 'supersedes', 'replaces', 'cancels', 'voids', 'revokes', 'nullifies', 'takes precedence over'];
const REVEAL = ['reveal', 'show', 'print', 'output', 'display', 'dump', 'leak', 'recite', 'repeat', 'echo', 'expose', 'disclose', 'share', 'tell', 'give', 'write out', 'spell out', 'copy', 'paste', 'list', 'return', 'provide', 'send', 'type out', 'state'];
const YOU_ARE = ["you're", 'you are', 'youre'];
const ENABLE = ['enter', 'enable', 'activate', 'switch to', 'turn on', 'engage', 'unlock'];

const QUALIFIER = '(?:previous|previously given|prior|above|earlier|preceding|foregoing|former|original|initial|existing|system|developer|safety|hidden|programmed|built-in)';
const INSTRUCTIONS = '(?:instructions?|prompts?|rules|directions|directives|guidelines|guidance|constraints|commands|context|programming|orders|polic(?:y|ies)|restrictions)';
const PROMPT = '(?:system prompt|system message|system instructions|prompt|instructions|pre-?prompt|(?:hidden|secret|internal) rules)';
const PROMPT_ADJECTIVE = '(?:full|entire|whole|complete|exact|original|initial|hidden|secret|internal|confidential|real|first)';
const MODE = '(?:jailbreak|jailbroken|unrestricted|unfiltered|uncensored|evil|dan|chaos|anarchy|opposite|no limits?|no filters?)';
const RULES = '(?:rules|restrictions|guidelines|filters|limits|limitations|boundaries|polic(?:y|ies)|principles|constraints|safeguards|guardrails|filtering|protocols|training|considerations|standards|ethics|morals|censorship)';
const UNFILTERED_PERSONA = '(?:(?:a|an|the|my) )?(?:(?:unfiltered|uncensored|unrestricted|amoral|unethical|immoral|non-moral|jailbroken|unaligned|evil|rogue) (?:(?:and|or) )?){1,3}(?:unbiased )?(?:ai|chatbot|assistant|language model|model|llm|version|persona|mode|confidant|gpt|bot|twin|alter ego)';
// Words that make "free of the rules" or "does not have to follow the rules" about an AI ...
const AI_WORDS = ['ai', 'chatgpt', 'gpt', 'llm', 'language model', 'chatbot', 'assistant', 'bot', 'model', 'openai', 'anthropic', 'claude', 'gemini'];
const AI_CONTEXT = anyWord(AI_WORDS);
// ... or "no content filters" about the model addressed (or told to answer) rather than a CMS.
const PERSONA_CONTEXT = anyWord([
  ...AI_WORDS, 'you', "you're", 'your', 'yourself', 'act', 'answer', 'respond', 'reply', 'pretend', 'roleplay', 'role-play', 'persona', 'character',
]);

// ---------------------------------------------------------------------------------------------
// The same override ("ignore all previous instructions") in other languages.

interface OverrideVocabulary {
  readonly verbs: readonly string[];
  /** "all" */
  readonly every: string;
  /** "your" */
  readonly yours: string;
  /** definite articles */
  readonly the: string;
  /** "previous", "above" where they precede the noun (Germanic, Slavic) ... */
  readonly before?: string;
  /** ... or follow it (Romance). */
  readonly after?: string;
  readonly nouns: string;
}

/**
 * "ignore all (the) instructions", "ignore your instructions", "ignore the previous instructions",
 * "ignore the instructions above": a bare "ignore the rules" needs one of all / your / a qualifier.
 */
function override(v: OverrideVocabulary): Phrase {
  const forms = [
    `(?:${v.every}) (?:(?:${v.the}|${v.yours}) )?${v.before ? `(?:(?:${v.before}) )?` : ''}(?:${v.nouns})`,
    `(?:${v.yours}) (?:${v.nouns})`,
    ...(v.before ? [`(?:(?:${v.the}|${v.yours}) )?(?:${v.before}) (?:${v.nouns})`] : []),
    ...(v.after ? [`(?:(?:${v.the}|${v.yours}) )?(?:${v.nouns}) (?:${v.after})`] : []),
  ];
  return phrase(v.verbs, `(?:${forms.join('|')})`);
}

const OVERRIDES_ABROAD: ReadonlyArray<readonly [string, OverrideVocabulary]> = [
  ['es', {
    verbs: ['ignora', 'ignore', 'ignoren', 'ignorad', 'ignorar', 'olvida', 'olvide', 'olviden', 'olvidad', 'olvidar', 'omite', 'descarta', 'desestima', 'haz caso omiso de'],
    every: 'todas|todos', yours: 'tus|sus', the: 'las|los',
    after: 'anteriores|previas|originales|iniciales|de antes|del sistema|de arriba',
    nouns: 'instrucciones|indicaciones|órdenes|ordenes|reglas|restricciones|directrices|normas',
  }],
  ['fr', {
    verbs: ['ignore', 'ignorez', 'ignorer', 'oublie', 'oubliez', 'oublier', 'ne tiens pas compte des', 'ne tenez pas compte des'],
    every: 'toutes|tous', yours: 'tes|vos', the: 'les|des',
    after: "précédentes|precedentes|antérieures|anterieures|initiales|d'origine|ci-dessus|du système|du systeme|reçues",
    nouns: 'instructions|consignes|règles|regles|directives|restrictions|indications',
  }],
  ['de', {
    verbs: ['ignoriere', 'ignorier', 'ignoriert', 'ignorieren sie', 'vergiss', 'vergesst', 'vergessen sie', 'missachte', 'missachtet'],
    every: 'alle|sämtliche|jegliche', yours: 'deine|ihre|eure', the: 'die',
    before: 'vorherigen|vorigen|bisherigen|früheren|obigen|vorangegangenen|ursprünglichen|alten',
    nouns: 'anweisungen|instruktionen|befehle|regeln|vorgaben|richtlinien|einschränkungen|systemanweisungen',
  }],
  ['pt', {
    verbs: ['ignore', 'ignora', 'ignorar', 'ignorem', 'esqueça', 'esqueca', 'esquece', 'esqueçam', 'desconsidere', 'desconsidera'],
    every: 'todas|todos', yours: 'suas|tuas|as suas|as tuas', the: 'as|os',
    after: 'anteriores|prévias|previas|originais|iniciais|do sistema|acima',
    nouns: 'instruções|instrucoes|regras|orientações|orientacoes|diretrizes|restrições|restricoes',
  }],
  ['it', {
    verbs: ['ignora', 'ignori', 'ignorate', 'ignorare', 'dimentica', 'dimentichi', 'dimenticate', 'tralascia'],
    every: 'tutte|tutti', yours: 'le tue|i tuoi|tue|tuoi', the: 'le|i|gli',
    after: 'precedenti|originali|iniziali|di prima|del sistema|sopra',
    nouns: 'istruzioni|regole|indicazioni|direttive|restrizioni',
  }],
  ['nl', {
    verbs: ['negeer', 'negeren', 'vergeet'],
    every: 'alle', yours: 'je|jouw|uw', the: 'de',
    before: 'vorige|eerdere|voorgaande|bovenstaande|oorspronkelijke|oude',
    nouns: 'instructies|regels|opdrachten|richtlijnen|aanwijzingen',
  }],
  ['ru', {
    verbs: ['игнорируй', 'игнорируйте', 'проигнорируй', 'проигнорируйте', 'забудь', 'забудьте', 'не обращай внимания на', 'не следуй'],
    every: 'все|всё', yours: 'свои|твои|ваши', the: 'эти',
    before: 'предыдущие|прежние|прошлые|старые|системные|изначальные|вышеуказанные',
    nouns: 'инструкции|указания|правила|команды|ограничения|установки',
  }],
];

// Chinese and Japanese have no spaces: a qualifier ("previous", "all", "your") then, a few
// characters on, an instruction noun, next to an ignore verb.
const OVERRIDE_CHINESE = phrase(
  ['忽略', '无视', '忘记', '忘掉', '忽视', '不要理会', '不要遵守', '不要遵循'],
  '(?:你|您)?(?:之前|以前|先前|此前|上面|上述|前面|所有|全部|你的|一切|原来|原有|系统)[^。！？]{0,8}(?:指令|指示|说明|规则|提示|设定|要求|命令|限制)',
  { open: true },
);
const OVERRIDE_JAPANESE = phrase(
  ['これまでの', '今までの', '以前の', '前の', '上記の', '上の', '先ほどの', 'すべての', '全ての', 'あなたの', 'システムの'],
  '[^。！？]{0,6}(?:指示|命令|ルール|設定|プロンプト|指令|制約)[^。！？]{0,6}(?:無視|忘れ)',
  { open: true },
);

// "without rules" in another language, said of the model.
const RULES_ABROAD =
  '(?:einschränkungen|regeln|richtlinien|filter|zensur|reglas|restricciones|filtros|límites|limites|censura|règles|filtres|censure|regole|restrizioni|filtri|regras|restrições|ограничений|правил|фильтров|цензуры)';
const PERSONA_ABROAD = anyWord(['ki', 'ia', 'ии', 'du bist', 'sei', 'eres', 'actúa como', 'actua como', 'tu es', 'agis comme', 'tu sei', 'agisci come', 'você é', 'voce e', 'aja como', 'ты', 'веди себя как']);

// ---------------------------------------------------------------------------------------------

export const PATTERN_RULES: readonly PatternRule[] = [
  {
    id: 'injection.ignore-instructions',
    category: 'injection',
    phrases: [
      phrase(IGNORE, `(?:${[
        `(?:(?:all|any|every|each|of|the|these|those|such) ){0,3}(?:${QUALIFIER} ){1,3}(?:(?:and|or|&) (?:${QUALIFIER} ){1,3})?${INSTRUCTIONS}`,
        `(?:all (?:of )?)?your (?:${WORD} ){0,2}?${INSTRUCTIONS}`,
        `(?:all (?:of )?)?(?:the|its|openai's|anthropic's|google's) (?:content|safety|usage) polic(?:y|ies)`,
        // "all rules" alone is too common around linters ("make eslint ignore all rules here").
        `all (?:of )?(?:the |these |those )?(?:instructions|prompts|directives|guidelines)`,
      ].join('|')})`),
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
      phrase(REVEAL, `(?:${[
        `(?:me |us )?(?:(?:all|of|the|text|contents?|wording|${PROMPT_ADJECTIVE}) ){0,4}your (?:${PROMPT_ADJECTIVE} ){0,3}${PROMPT}`,
        `(?:me |us )?(?:all (?:of )?)?the (?:${PROMPT_ADJECTIVE} ){1,3}(?:system )?(?:prompt|instructions|system message)`,
        '(?:back )?(?:everything|all (?:of )?(?:the )?(?:text|words)) (?:above|before this)',
        '(?:back )?the (?:text|words|content|lines|prompt|instructions) above (?:starting|beginning|verbatim|word for word|this line|from the start)',
      ].join('|')})`),
      phrase(
        ["what's", 'what is', 'what are', 'what were', 'what was'],
        `(?:in )?your (?:(?:${PROMPT_ADJECTIVE}|current|system) ){0,2}(?:system prompt|system message|prompt|instructions)`,
      ),
      phrase(
        ['what your'],
        `(?:(?:${PROMPT_ADJECTIVE}|current|system) ){0,2}(?:system prompt|system message|prompt|instructions) (?:says?|is|are|contains?|looks like)`,
      ),
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
  { id: 'injection.ignore-instructions.zh', category: 'injection', phrases: [OVERRIDE_CHINESE] },
  { id: 'injection.ignore-instructions.ja', category: 'injection', phrases: [OVERRIDE_JAPANESE] },

  { id: 'jailbreak.dan', category: 'jailbreak', phrases: [phrase(['do anything now'], '')], context: anyWord(['dan']) },
  {
    id: 'jailbreak.mode-switch',
    category: 'jailbreak',
    phrases: [
      phrase(YOU_ARE, `(?:now )?in ${MODE} mode`),
      phrase(ENABLE, `${MODE} mode`),
      phrase(['jailbreak mode', 'jailbroken mode'], ''),
    ],
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
      phrase(
        ['chatgpt', 'gpt', 'ai', 'assistant', 'language model', 'llm', 'chatbot', 'bot', 'claude', 'gemini', 'you'],
        `(?:${WORD} ){0,2}(?:with|in) developer mode`,
      ),
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
          'without', 'with no', 'no', 'free of', 'free from', 'no longer bound by', 'not bound by', 'unbound by', 'unconstrained by',
          'never trained with', 'never trained on', 'never given', 'never been trained with', 'never been trained on', 'never been given',
          "doesn't have", 'does not have', "don't have", 'do not have', 'has no', 'have no', 'had no', 'lacks', 'lacking', 'devoid of',
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
      phrase(
        ['act as', 'acting as', ...YOU_ARE, 'you will be', 'become', 'pretend to be', 'roleplay as', 'role-play as', 'replaced by', ...ENABLE, 'simulate', 'emulate'],
        UNFILTERED_PERSONA,
      ),
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
