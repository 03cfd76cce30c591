import type { Tier } from './catalog';

/**
 * Everything the smart router's score is made of, in one place (documented in docs/routing.md).
 * Keyword lists hold whole words or phrases (matched on word boundaries, lowercase), in English
 * and the other languages clients write in most; CJK entries match as substrings.
 */
export const KEYWORDS = {
  /** Asks for a proof or derivation outright: each hit counts twice. */
  proof: [
    'prove', 'proves', 'proof', 'prove that', 'theorem', 'lemma', 'corollary', 'derive', 'derivation', 'show that', 'by induction',
    'counterexample', 'if and only if', 'iff', 'rigorous', 'rigorously', 'formally', 'justify', 'justify your answer',
    'demuestra', 'demuestre', 'demostrar', 'demostración', 'prouve', 'prouvez', 'prouver', 'démontre', 'démontrez', 'démontrer',
    'démonstration', 'montrer que', 'montrez que', 'montre que', 'beweise', 'beweisen', 'beweis', 'zeige, dass', 'zeige dass',
    'demonstre', 'demonstrar', 'prove que', 'dimostra', 'dimostrare', 'dimostrazione', 'докажи', 'докажите', 'доказательство',
    'покажите', '证明', '推导', '証明', '導出', '示せ',
  ],
  reasoning: [
    'step by step', 'step-by-step', 'reason', 'reasoning', 'deduce', 'infer', 'contradiction', 'induction', 'explain why',
    'think through', 'invariant', 'necessarily', 'paradox', 'puzzle', 'riddle', 'optimal strategy', 'nash equilibrium',
    'expected value', 'expected number', 'worst case', 'lower bound', 'upper bound', 'find all', 'how many ways', 'is it possible',
    'what is the chance', 'chance', 'odds', 'argue', 'argues', 'conclude', 'conclusion', 'causal', 'causation', 'confounding',
    'fallacy', 'flaw', 'flawed', 'valid', 'solve', 'determine', 'minimum number', 'maximum number', 'correctness', 'logically',
    'suppose', 'evaluate the', 'each step', 'probability', 'probabilité', 'probabilidad', 'wahrscheinlichkeit', 'probabilidade',
    'probabilità', 'вероятность', '概率', '確率', 'knights and knaves', 'truth-teller', 'liar', 'liars', 'weighing', 'weighings',
    'balance scale', 'dice', 'deck of cards', 'urn', 'monty hall', 'prisoners', 'game theory', 'optimal', 'minimize', 'maximize',
    'time complexity', 'space complexity', 'termination', 'terminates', 'halting', 'undecidable', 'np-complete', 'np-hard',
    'reduction', 'pigeonhole', 'parity', 'congruent', 'gcd', 'recurrence', 'closed form', 'asymptotic', 'diverge', 'diverges',
    'differential equation', 'counting argument', 'bijection', 'well-defined', 'deduction', 'syllogism', 'premise', 'premises', 'paso a paso', 'razona', 'encuentra todos', 'étape par étape', 'trouver tous',
    'schritt für schritt', 'finde alle', 'passo a passo', 'passo dopo passo', 'trova tutti', 'шаг за шагом', 'найдите все',
    'найди все', '一步一步', '逐步', '求所有', 'すべて求め', '段階的',
  ],
  technical: [
    'algorithm', 'kubernetes', 'database', 'architecture', 'distributed', 'concurrent', 'concurrency', 'protocol', 'optimization',
    'benchmark', 'latency', 'throughput', 'scalability', 'scalable', 'microservice', 'microservices', 'api', 'schema', 'migration',
    'replication', 'consensus', 'sharding', 'cache', 'caching', 'compiler', 'kernel', 'memory leak', 'race condition', 'deadlock',
    'thread', 'threads', 'async', 'encryption', 'authentication', 'oauth', 'tls', 'terraform', 'docker', 'ci', 'pipeline', 'deployment',
    'infrastructure', 'postgres', 'postgresql', 'redis', 'kafka', 'graphql', 'rest', 'grpc', 'typescript', 'rust', 'golang', 'python',
    'java', 'javascript', 'node', 'kotlin', 'swift', 'php', 'ruby', 'bash', 'html', 'css', 'linux', 'git', 'http',
    'dns', 'tcp', 'react', 'sql', 'index', 'indexes', 'query', 'regression', 'neural', 'transformer', 'gradient', 'embedding', 'vector',
    'load balancer', 'failover', 'idempotent', 'idempotency', 'event sourcing', 'observability', 'rate limiter', 'queue',
    'system', 'platform', 'end-to-end', 'high availability', 'multi-tenant', 'zero downtime', 'threat model', 'incident response',
    'disaster recovery', 'sla', 'production-ready', 'test suite', 'unit tests', 'ci/cd', 'monorepo', 'dashboard', 'data model',
    'state machine', 'rollout', 'rollback', 'feature flag', 'offline', 'sync', 'backend', 'frontend', 'mobile app', 'iot',
    'arquitectura', 'base de datos', 'algoritmo', 'architektur', 'datenbank', 'algorithmus', 'base de données', 'algorithme',
    'banco de dados', 'архитектура', 'база данных', 'алгоритм', '架构', '数据库', '算法', 'アーキテクチャ', 'データベース', 'アルゴリズム',
  ],
  creative: [
    'story', 'poem', 'poetry', 'haiku', 'limerick', 'brainstorm', 'creative', 'imagine', 'fiction', 'narrative', 'lyrics', 'song',
    'slogan', 'tagline', 'character', 'plot', 'fairy tale', 'sonnet', 'cuento', 'poema', 'historia', 'poème', 'histoire', 'gedicht',
    'geschichte', 'conto', 'poesia', 'racconto', 'стихотворение', 'рассказ', '故事', '诗', '物語', '詩',
  ],
  /** Open-ended asks: the answer is an explanation, not a fact. */
  openEnded: [
    'explain', 'describe', 'compare', 'summarise', 'summarize', 'summary', 'rewrite', 'write', 'draft', 'how does', 'how do',
    'how can', 'how to', 'difference between', 'pros and cons', 'example', 'examples', 'review', 'improve', 'suggest',
    'explica', 'explícame', 'explique', 'expliquer', 'erkläre', 'erklär', 'beschreibe', 'vergleiche', 'resume', 'résume', 'resumir',
    'spiega', 'объясни', 'опиши', 'сравни', '解释', '说明', '比较', '説明', '比較', 'まとめ', 'give me', 'create', 'generate',
    'list', 'outline', 'tips', 'advice', 'recommend', 'help me', 'itinerary', 'recipe', 'cover letter', 'email', 'letter',
    'essay', 'paragraph', 'blog post', 'product description', 'tweet', 'caption', 'toast', 'speech', 'ideas', 'ejemplo', 'exemple', 'beispiel', 'exemplo', 'esempio', 'пример', '例子', 'escribe', 'redacta', 'écris', 'rédige', 'schreibe', 'verfasse', 'escreva', 'scrivi', 'напиши', '写一', '書いて',
  ],
  simple: [
    'what is', "what's", 'define', 'definition', 'translate', 'hello', 'hi', 'hey', 'thanks', 'thank you', 'yes', 'no', 'ok', 'okay',
    'yes or no', 'true or false', 'is it true', 'what does', 'stand for', 'abbreviation', 'acronym', 'how do you say',
    'how do you spell', 'what year', 'which country', 'population of', 'how tall', 'how far', 'how old', 'in one word',
    'one sentence', 'remind me', 'default', 'short answer', 'cuál es', 'quién', 'cuándo', 'dónde', 'quel est', 'quelle est',
    'qui est', 'wer ist', 'wann', 'wo ist', 'qual é', 'quem', 'qual è', 'chi è', 'кто', 'когда', 'сколько', '是谁', '多少',
    'いつ', 'どこ', 'ですか', 'again', 'capitalize', 'grammar', 'spelling', 'punctuation', 'proofread', 'turn this into', 'make this',
    'reformat', 'capital of', 'how many', 'spell', 'synonym', 'antonym', 'convert', 'meaning of', 'who is', 'who was', 'when was', 'when did',
    'what time', 'good morning', 'hola', 'gracias', 'qué es', 'traduce', 'traducir', 'bonjour', 'merci', "qu'est-ce", 'traduis',
    'traduire', 'hallo', 'danke', 'was ist', 'übersetze', 'olá', 'obrigado', 'o que é', 'traduza', 'ciao', 'grazie', 'cos’è', "cos'è",
    'traduci', 'привет', 'спасибо', 'что такое', 'переведи', '你好', '谢谢', '什么是', '翻译', 'こんにちは', 'ありがとう', 'とは', '翻訳',
  ],
  multiStep: [
    'design', 'implement', 'build', 'architect', 'plan', 'migrate', 'migration plan', 'refactor', 'diagnose', 'root cause',
    'requirements', 'constraints', 'trade-offs', 'tradeoffs', 'end to end', 'production', 'roadmap', 'week-by-week',
    'diseña', 'diseñar', 'implementa', 'conçois', 'concevoir', 'entwirf', 'entwerfe', 'implementiere', 'projete', 'progetta',
    'спроектируй', 'разработай', '设计', '实现', '設計', '実装',
    'first', 'then', 'next', 'finally', 'afterwards', 'step 1', 'step 2', 'step one', 'step two', 'after that', 'followed by',
    'primero', 'luego', 'después', 'finalmente', "d'abord", 'ensuite', 'puis', 'enfin', 'zuerst', 'dann', 'danach', 'schließlich',
    'primeiro', 'depois', 'prima', 'poi', 'infine', 'сначала', 'затем', 'потом', '首先', '然后', '最后', 'まず', '次に', '最後に',
  ],
  agentic: [
    'read file', 'read the file', 'write file', 'write the file', 'edit', 'deploy', 'execute', 'run command', 'run the command',
    'run the tests', 'install', 'open a pull request', 'commit', 'push', 'refactor', 'clone', 'grep', 'terminal', 'shell', 'cli',
    'repository', 'repo', 'codebase', 'search the web', 'browse', 'scrape', 'schedule', 'automate', 'agent',
  ],
  math: [
    'equation', 'equations', 'formula', 'calculate', 'compute', 'integral', 'derivative', 'matrix', 'eigenvalue', 'probability',
    'expected', 'variance', 'calculation', 'calcul', 'calcula', 'calcule', 'berechne', 'calcola', 'вычисли', '计算', '計算', 'polynomial', 'prime', 'primes', 'modulo', 'mod', 'divisible', 'integer', 'integers', 'sum', 'series',
    'limit', 'converge', 'converges', 'inequality', 'logarithm', 'factorial', 'combinatorics', 'permutations', 'graph', 'vertices',
    'for all', 'there exists', 'real numbers', 'rational', 'irrational', 'function f', 'ecuación', 'probabilidad', 'équation',
    'probabilité', 'gleichung', 'wahrscheinlichkeit', 'equação', 'probabilidade', 'equazione', 'probabilità', 'уравнение',
    'вероятность', '方程', '概率', '積分', '確率', '素数',
  ],
  outputFormat: [
    'json', 'csv', 'xml', 'yaml', 'markdown', 'table', 'structured', 'schema', 'bullet points', 'format', 'report', 'spec',
    'specification', 'document', 'diagram', 'checklist', 'template',
  ],
  domain: [
    'medical', 'legal', 'scientific', 'clinical', 'regulatory', 'compliance', 'diagnosis', 'gdpr', 'hipaa', 'contract', 'liability',
    'pharmacology', 'genomics', 'statute', 'audit', 'threat model', 'forensic', 'actuarial',
  ],
  code: [
    'function', 'def', 'class', 'import', 'return', 'const', 'let', 'var', 'public', 'static', 'void', 'async', 'await', 'lambda',
    'struct', 'impl', 'fn', 'interface', 'select', 'insert', 'update', 'join', 'where', 'null', 'undefined', 'exception', 'traceback',
    'stack trace', 'compile', 'bug', 'debug', 'regex', 'script', 'code', 'snippet',
  ],
} as const satisfies Record<string, readonly string[]>;

export type KeywordList = keyof typeof KEYWORDS;



/** Keyword density: 0 hits 0, 1 hit 0.3, 2 hits 0.6, 3 or more 1.0. */
export const KEYWORD_DENSITY = [0, 0.3, 0.6, 1] as const;

export const DIMENSIONS = [
  'tokenCount',
  'codePresence',
  'reasoningMarkers',
  'technicalTerms',
  'creativeMarkers',
  'simpleIndicators',
  'multiStep',
  'questionComplexity',
  'agenticMarkers',
  'mathAndLogic',
  'languageComplexity',
  'conversationDepth',
  'toolUsage',
  'outputFormat',
  'domainSpecificity',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/**
 * Reasoning is a kind of difficulty, not of size, so it is decided apart from the summed score:
 * a request is Reasoning when its reasoning evidence (proof and reasoning markers, mathematics and
 * logic, less code, which marks a debugging or building task) reaches REASONING_THRESHOLD.
 * Otherwise the weighted sum of all 15 dimensions picks Simple, Medium or Complex.
 */
export const REASONING_EVIDENCE: Readonly<Partial<Record<Dimension, number>>> = {
  reasoningMarkers: 5.46,
  mathAndLogic: 2.67,
  codePresence: -0.71,
  multiStep: -0.85,
  technicalTerms: -0.76,
  tokenCount: 0.27,
};
export const REASONING_THRESHOLD = 2.63;

/**
 * Each dimension's signal (about -1 to 1) times its weight, summed, places a request that is not
 * Reasoning: Simple below TIER_THRESHOLDS' Medium, Complex from its Complex. Fitted on the tune
 * split of test/data/router-prompt-set.json (docs/routing.md says how); zero means the dimension
 * speaks only through the reasoning evidence.
 */
export const WEIGHTS: Readonly<Record<Dimension, number>> = {
  tokenCount: 3.93,
  codePresence: 0.44,
  reasoningMarkers: 0.05,
  technicalTerms: 3.86,
  creativeMarkers: 0.61,
  simpleIndicators: 2.47,
  multiStep: 2.45,
  questionComplexity: 2.83,
  agenticMarkers: 0.17,
  mathAndLogic: 0.03,
  languageComplexity: 0.62,
  conversationDepth: 1.08,
  toolUsage: 2.29,
  outputFormat: 0.54,
  domainSpecificity: 0.43,
};

/** The lowest summed score of Complex and Medium. */
export const TIER_THRESHOLDS: ReadonlyArray<readonly [Tier, number]> = [
  ['Complex', 2.57],
  ['Medium', -2.15],
];

/**
 * Length in words (a CJK character counts as one), on a log scale: LENGTH_PIVOT_WORDS gives 0, each
 * doubling adds LENGTH_SLOPE, clamped to -1..1 (about 4 words is -1, 512 words +1 with the defaults).
 */
export const LENGTH_PIVOT_WORDS = 45;
export const LENGTH_SLOPE = 0.33;
/** What a pasted word counts for, against a word of the ask itself. */
export const PASTED_WORD_SHARE = 0.25;
