# Version 2: authors get an e-mail address.
schema "0002 add author email" do
  entity "Article" do
    string   :title, optional: false
    string   :body
    datetime :published_at

    belongs_to :author
  end

  entity "Author" do
    string :name, optional: false
    string :email

    has_many :articles, deletionRule: "Cascade"
  end
end
